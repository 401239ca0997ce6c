// Plain reads, or zlib for gzip.
#include "util/file_bytes.h"

#include <zlib.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "util/error.h"
#include "util/input_files.h"

namespace schedlab {

FileBytes::FileBytes(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(path, 0, "", "cannot open file: " + std::string(std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      ::close(fd);
      throw InputError(path, 0, "", "cannot open file: it is a directory");
    }
    if (S_ISREG(st.st_mode)) size_ = static_cast<std::int64_t>(st.st_size);
    note_input_file(fd);
  }
  unsigned char magic[2] = {0, 0};
  const ssize_t peeked = ::pread(fd, magic, 2, 0);
  if (peeked >= 0 && !(peeked == 2 && magic[0] == 0x1f && magic[1] == 0x8b)) {
    fd_ = fd;
    return;
  }
  gz_ = gzdopen(fd, "rb");  // owns fd from here
  if (!gz_) {
    ::close(fd);
    throw InputError(path, 0, "", "cannot open file: out of memory");
  }
  gzbuffer(static_cast<gzFile>(gz_), 1 << 18);
}

FileBytes::~FileBytes() {
  if (gz_) gzclose(static_cast<gzFile>(gz_));
  if (fd_ >= 0) ::close(fd_);
}

long FileBytes::read(char* into, std::size_t bytes) {
  if (bytes > INT_MAX) bytes = INT_MAX;
  if (gz_) {
    const int n = gzread(static_cast<gzFile>(gz_), into, static_cast<unsigned>(bytes));
    if (n < 0) {
      int err = 0;
      // zlib names a gzdopen'ed file "<fd:N>"; callers name the file themselves.
      std::string what = gzerror(static_cast<gzFile>(gz_), &err);
      if (what.rfind("<fd:", 0) == 0 && what.find(": ") != std::string::npos) what.erase(0, what.find(": ") + 2);
      error_ = "read error: " + what;
    }
    return n;
  }
  // A block at a time, as zlib would: short reads (a pipe, a signal) are filled up, so that a
  // caller that counts on whole blocks sees the same bytes wherever the input came from.
  std::size_t got = 0;
  while (got < bytes) {
    const ssize_t n = ::read(fd_, into + got, bytes - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      error_ = std::string("read error: ") + std::strerror(errno);
      return -1;
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  plain_read_ += static_cast<std::int64_t>(got);
  return static_cast<long>(got);
}

double FileBytes::fraction_read() const {
  if (size_ <= 0) return -1.0;
  std::int64_t at = plain_read_;
  if (gz_) at = static_cast<std::int64_t>(gzoffset(static_cast<gzFile>(gz_)));
  return at < 0 ? -1.0 : std::min(1.0, static_cast<double>(at) / static_cast<double>(size_));
}

}  // namespace schedlab
