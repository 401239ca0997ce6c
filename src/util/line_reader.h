// Streams a text file line by line, gzip or plain (util/file_bytes.h), with a large buffer
// and no copy per line: the returned view is valid until the next call.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.h"
#include "util/file_bytes.h"

namespace schedlab::util {

// The file itself cannot be read (a corrupt gzip stream, an I/O error, a line past the bound
// on line length): not a bad row that
// --skip-bad-rows may pass over, since every later read fails the same way.
class ReadError : public InputError {
 public:
  using InputError::InputError;
};

class LineReader {
 public:
  // Throws InputError when the file cannot be opened.
  explicit LineReader(const std::string& path);
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line without its end-of-line ('\n' or "\r\n"); false at end of file.
  // A last line without a newline is returned as a line. A UTF-8 byte order mark at the start
  // of the file is left out: editors on Windows write one, and kept it would be an invisible
  // part of the first column's name. A line longer than kMaxLineBytes (util/input_limits.h)
  // throws ReadError naming it, before more than that is held.
  bool next(std::string_view& line);
  long line_number() const { return line_no_; }
  const std::string& path() const { return path_; }
  // True when the last line returned had no newline after it (a truncated file, maybe).
  bool last_line_unterminated() const { return unterminated_; }
  // The share of the file read so far, 0 to 1 (of the compressed bytes for a gzip file;
  // read ahead by the buffer), for a progress line.
  double fraction_read() const;

 private:
  bool refill();
  [[noreturn]] void too_long() const;
  void drop_bom(std::string_view& line) const;
  static constexpr std::size_t kBufferBytes = 1 << 20;

  std::string path_;
  FileBytes bytes_;
  // Not zero-filled: a small trace touches only the pages it reads into (zeroing 1 MiB per
  // reader was a fifth of a short run's time, which a sweep of short runs pays per cell).
  std::unique_ptr<char[]> buf_;
  std::size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  bool unterminated_ = false;
  long line_no_ = 0;
  std::string carry_;
};

}  // namespace schedlab::util
