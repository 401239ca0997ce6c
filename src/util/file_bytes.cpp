// Plain reads, or zlib's inflate() over gzip members, each checked to its trailer.
#include "util/file_bytes.h"

#include <fmt/format.h>
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

namespace schedlab::util {

namespace {
// Compressed input is read this much at a time (what gzbuffer was given before).
constexpr std::size_t kGzipInputBytes = std::size_t{1} << 18;

bool gzip_magic(const unsigned char* p) { return p[0] == 0x1f && p[1] == 0x8b; }
}  // namespace

struct FileBytes::Gzip {
  z_stream zs{};
  std::unique_ptr<unsigned char[]> in = std::make_unique_for_overwrite<unsigned char[]>(kGzipInputBytes);
  bool input_ended = false;  // the file has no more bytes after those in `in`
  bool in_member = true;     // inside a member: the input must not end here
  bool done = false;         // the last member and any zero padding after it are read
  long members = 0;          // members read whole
  std::string pending_error;  // met after some bytes were handed out: told on the next read

  Gzip() {
    // 16 + MAX_WBITS: a gzip wrapper (header, CRC-32 and length trailer checked by zlib).
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) throw std::bad_alloc();
  }
  ~Gzip() { inflateEnd(&zs); }
  Gzip(const Gzip&) = delete;
  Gzip& operator=(const Gzip&) = delete;
};

FileBytes::FileBytes(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(path, 0, "", "cannot open file: " + std::string(std::strerror(errno)));
  fd_ = fd;
  struct stat st {};
  if (::fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      ::close(fd_);
      fd_ = -1;
      throw InputError(path, 0, "", "cannot open file: it is a directory");
    }
    if (S_ISREG(st.st_mode)) size_ = static_cast<std::int64_t>(st.st_size);
    note_input_file(fd);
  }
  unsigned char magic[2] = {0, 0};
  ssize_t peeked = ::pread(fd, magic, 2, 0);
  if (peeked < 0) {
    // Not seekable (a pipe): read the first bytes ahead and hand them out first.
    char first[2];
    std::size_t got = 0;
    while (got < 2) {
      const ssize_t n = ::read(fd, first + got, 2 - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    ahead_.assign(first, got);
    std::memcpy(magic, first, got);
    peeked = static_cast<ssize_t>(got);
  }
  if (peeked == 2 && gzip_magic(magic)) {
    try {
      gz_ = std::make_unique<Gzip>();
    } catch (const std::bad_alloc&) {
      ::close(fd_);
      throw InputError(path, 0, "", "cannot open file: out of memory");
    }
  }
}

FileBytes::~FileBytes() {
  if (fd_ >= 0) ::close(fd_);
}

long FileBytes::raw_read(char* into, std::size_t bytes) {
  std::size_t got = 0;
  if (!ahead_.empty()) {
    got = std::min(bytes, ahead_.size());
    std::memcpy(into, ahead_.data(), got);
    ahead_.erase(0, got);
  }
  // A block at a time: short reads (a pipe, a signal) are filled up, so that a caller that
  // counts on whole blocks sees the same bytes wherever the input came from.
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
  raw_read_ += static_cast<std::int64_t>(got);
  return static_cast<long>(got);
}

long FileBytes::read(char* into, std::size_t bytes) {
  if (bytes > INT_MAX) bytes = INT_MAX;
  return gz_ ? read_gzip(into, bytes) : raw_read(into, bytes);
}

long FileBytes::read_gzip(char* into, std::size_t bytes) {
  Gzip& g = *gz_;
  if (!g.pending_error.empty()) {
    error_ = g.pending_error;
    return -1;
  }
  z_stream& zs = g.zs;
  zs.next_out = reinterpret_cast<Bytef*>(into);
  zs.avail_out = static_cast<uInt>(bytes);
  // Fails now, or on the next call when bytes were produced before the fault.
  auto fail_with = [&](const std::string& message) -> long {
    const std::size_t produced = bytes - zs.avail_out;
    g.pending_error = message;  // every later read fails the same way
    if (produced == 0) {
      error_ = message;
      return -1;
    }
    return static_cast<long>(produced);
  };
  auto fail = [&](const std::string& what) { return fail_with("read error: " + what); };
  while (zs.avail_out > 0 && !g.done) {
    if (zs.avail_in == 0 && !g.input_ended) {
      const long n = raw_read(reinterpret_cast<char*>(g.in.get()), kGzipInputBytes);
      if (n < 0) return fail_with(error_);
      if (static_cast<std::size_t>(n) < kGzipInputBytes) g.input_ended = true;
      zs.next_in = g.in.get();
      zs.avail_in = static_cast<uInt>(n);
    }
    if (!g.in_member) {
      // Between members: another member, zero padding, or the end.
      if (zs.avail_in == 0) {
        g.done = true;
        break;
      }
      if (zs.next_in[0] == 0) {
        const unsigned char* nonzero =
            std::find_if(zs.next_in, zs.next_in + zs.avail_in, [](unsigned char c) { return c != 0; });
        if (nonzero == zs.next_in + zs.avail_in) {
          zs.avail_in = 0;  // all padding so far
          continue;
        }
        return fail(fmt::format("bytes other than zeros after the padding that ends gzip member {}", g.members));
      }
      // The magic may straddle two blocks: keep its first byte and read on.
      if (zs.avail_in < 2 && !g.input_ended) {
        g.in[0] = zs.next_in[0];
        const long n = raw_read(reinterpret_cast<char*>(g.in.get()) + 1, kGzipInputBytes - 1);
        if (n < 0) return fail_with(error_);
        if (static_cast<std::size_t>(n) < kGzipInputBytes - 1) g.input_ended = true;
        zs.next_in = g.in.get();
        zs.avail_in = static_cast<uInt>(n + 1);
      }
      if (zs.avail_in < 2 || !gzip_magic(zs.next_in))
        return fail(fmt::format("bytes that are not gzip data after gzip member {} (a gzip file holds gzip members "
                                "only, then zero bytes at most)",
                                g.members));
      inflateReset(&zs);
      g.in_member = true;
    }
    const uInt out_before = zs.avail_out, in_before = zs.avail_in;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      // zlib has checked the member's CRC-32 and length against its trailer.
      ++g.members;
      g.in_member = false;
      continue;
    }
    if (rc == Z_OK || rc == Z_BUF_ERROR) {
      // No progress with all input given to it: the file ends before the member does. (inflate
      // may still hold output with no input left, so only a call that makes no progress tells.)
      if (zs.avail_in == 0 && g.input_ended && zs.avail_out == out_before && in_before == 0)
        return fail(fmt::format("the gzip data ends inside member {} (unexpected end of file): the file is truncated",
                                g.members + 1));
      continue;
    }
    if (rc == Z_MEM_ERROR) return fail("out of memory while inflating gzip data");
    return fail(fmt::format("corrupt gzip data in member {}: {}", g.members + 1, zs.msg ? zs.msg : "invalid data"));
  }
  return static_cast<long>(bytes - zs.avail_out);
}

double FileBytes::fraction_read() const {
  if (size_ <= 0) return -1.0;
  std::int64_t at = raw_read_;
  if (gz_) at -= static_cast<std::int64_t>(gz_->zs.avail_in);  // read in, not yet inflated
  return at < 0 ? -1.0 : std::min(1.0, static_cast<double>(at) / static_cast<double>(size_));
}

}  // namespace schedlab::util
