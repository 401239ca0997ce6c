// FileBytes: the bytes of an input file, gunzipped when it is gzip. A plain file is read
// straight into the caller's buffer; zlib, which reads plain files too, copies them through
// two buffers of its own first, and those copies' fresh pages were a quarter of the page
// faults of a short run (a sweep of short runs pays them per cell). Gzip is recognised by its
// magic bytes; input that cannot be peeked at (a pipe) goes through zlib, which tells itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace schedlab {

class FileBytes {
 public:
  // Throws InputError ("cannot open file: ...") when the file cannot be opened.
  explicit FileBytes(const std::string& path);
  ~FileBytes();
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  // Up to `bytes` bytes into `into`; 0 at the end. -1 on a read error (a corrupt gzip stream,
  // an I/O error), described by error(): callers name the line they had reached.
  long read(char* into, std::size_t bytes);
  const std::string& error() const { return error_; }
  // The share of the file consumed so far, 0 to 1 (of the compressed bytes for gzip), for a
  // progress line; -1 when unknown (not a regular file).
  double fraction_read() const;

 private:
  int fd_ = -1;          // plain input
  void* gz_ = nullptr;   // gzFile, for gzip (and input that could not be peeked at)
  std::int64_t plain_read_ = 0;
  std::int64_t size_ = -1;  // a regular file's size
  std::string error_;
};

}  // namespace schedlab
