// FileBytes: the bytes of an input file, gunzipped when it is gzip. Every reader of input
// files (LineReader, the JSON pull tokenizer) goes through it, so this is the one place where
// gzip framing is checked.
//
// A plain file is read straight into the caller's buffer; zlib's gz* file interface, which
// reads plain files too, copies them through two buffers of its own first, and those copies'
// fresh pages were a quarter of the page faults of a short run (a sweep of short runs pays
// them per cell). Gzip is recognised by its magic bytes (peeked at with pread, or read ahead
// and handed out first where the input is a pipe) and inflated with zlib's inflate() itself,
// not gzread: gzread hands out what it has when a stream ends early (its "unexpected end of
// file" stays in gzerror while the read looks like an end of file), and a member cut at a
// flush point looks whole to it. Here every member must reach its trailer, whose CRC-32 and
// length zlib checks; members may follow one another (gzip's concatenation), zero bytes after
// the last are ignored (padding, as gzip itself ignores them), and anything else is an error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace schedlab::util {

class FileBytes {
 public:
  // Throws InputError ("cannot open file: ...") when the file cannot be opened.
  explicit FileBytes(const std::string& path);
  ~FileBytes();
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  // Up to `bytes` bytes into `into`; 0 at the end. -1 on a read error (a truncated or corrupt
  // gzip stream, an I/O error), described by error(): callers name the line they had reached.
  // The bytes before a fault are handed out first; the error comes with the next read.
  long read(char* into, std::size_t bytes);
  const std::string& error() const { return error_; }
  // The share of the file consumed so far, 0 to 1 (of the compressed bytes for gzip), for a
  // progress line; -1 when unknown (not a regular file).
  double fraction_read() const;

 private:
  struct Gzip;  // zlib's inflate state and its input buffer
  long read_plain(char* into, std::size_t bytes);
  long read_gzip(char* into, std::size_t bytes);
  // Raw bytes of the file, after the ones read ahead to look for the magic; -1 on an error.
  long raw_read(char* into, std::size_t bytes);

  int fd_ = -1;
  std::unique_ptr<Gzip> gz_;  // null for plain input
  std::string ahead_;         // bytes read to look for the magic (a pipe), handed out first
  std::int64_t raw_read_ = 0;  // bytes of the file consumed
  std::int64_t size_ = -1;     // a regular file's size
  std::string error_;
};

}  // namespace schedlab::util
