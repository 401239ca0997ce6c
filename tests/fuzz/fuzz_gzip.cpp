// Fuzz target of gzip framing (util/file_bytes.h, util/line_reader.h): the input is a file's
// bytes, gzip or plain, read as every trace reader reads it. What comes out must be what the
// file holds, with zlib's inflate as the reference: a plain file's bytes; a gzip file's
// members, one after another, each whole and with its CRC checked. A gzip member that does not
// end cleanly (cut short, corrupt, a CRC or length that does not match) must be refused with
// an InputError, never read short or long. Bytes after the last whole member that do not start
// another member may be ignored (zlib's gzread does) or refused.
#include <zlib.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_targets.h"
#include "util/error.h"
#include "util/file_bytes.h"
#include "util/line_reader.h"

namespace schedlab::fuzz {
namespace {

// Beyond this much decompressed output the comparison is left out (a bomb is still read).
constexpr std::size_t kMaxCompared = std::size_t{64} << 20;
// A line this long or longer may be refused by a line-length bound; shorter ones may not.
constexpr std::size_t kLongLine = std::size_t{64} << 10;

struct Reference {
  bool clean = true;    // every gzip member ends with a matching trailer
  bool compared = true; // the output fits kMaxCompared
  bool trailing = false; // bytes after the last member that start no member
  std::string bytes;
};

bool gzip_magic(const std::uint8_t* p, std::size_t n) { return n >= 2 && p[0] == 0x1f && p[1] == 0x8b; }

Reference reference(const std::uint8_t* data, std::size_t size) {
  Reference r;
  if (!gzip_magic(data, size)) {
    r.bytes.assign(reinterpret_cast<const char*>(data), size);
    return r;
  }
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) throw std::runtime_error("inflateInit2 failed");
  std::size_t pos = 0;
  std::vector<unsigned char> out(1 << 16);
  for (;;) {
    zs.next_in = const_cast<std::uint8_t*>(data + pos);
    zs.avail_in = static_cast<uInt>(size - pos);
    int ret = Z_OK;
    do {
      zs.next_out = out.data();
      zs.avail_out = static_cast<uInt>(out.size());
      ret = inflate(&zs, Z_NO_FLUSH);
      const std::size_t got = out.size() - zs.avail_out;
      if (r.bytes.size() + got > kMaxCompared)
        r.compared = false;
      else
        r.bytes.append(reinterpret_cast<const char*>(out.data()), got);
    } while (ret == Z_OK && (zs.avail_in > 0 || zs.avail_out == 0));
    if (ret != Z_STREAM_END) {  // an error, or the input ended inside the member
      r.clean = false;
      break;
    }
    pos = size - zs.avail_in;
    if (!gzip_magic(data + pos, size - pos)) {  // the end, or bytes that start no member
      r.trailing = pos < size;
      break;
    }
    inflateReset(&zs);
  }
  inflateEnd(&zs);
  return r;
}

// The lines LineReader promises for `bytes`: split at '\n', one '\r' before it dropped, a last
// line without a newline kept, a UTF-8 byte order mark at the start of the first line dropped.
std::vector<std::string_view> lines_of(std::string_view bytes, bool& unterminated) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  unterminated = false;
  while (pos < bytes.size()) {
    std::size_t nl = bytes.find('\n', pos);
    unterminated = nl == std::string_view::npos;
    if (unterminated) nl = bytes.size();
    std::string_view line = bytes.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (out.empty() && line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);
    out.push_back(line);
    pos = nl + 1;
  }
  return out;
}

// Reads the whole file with FileBytes in chunks of odd sizes (the first 64 KiB), then large
// ones; false when a read failed.
bool read_in_chunks(const std::string& path, std::string& out) {
  util::FileBytes bytes(path);
  static constexpr std::size_t kSizes[] = {1, 3, 7, 512, 4093};
  std::vector<char> buf(1 << 20);
  for (std::size_t i = 0;; ++i) {
    const std::size_t want = out.size() < (1 << 16) ? kSizes[i % 5] : buf.size();
    const long n = bytes.read(buf.data(), want);
    const double f = bytes.fraction_read();
    expect(f == -1.0 || (f >= 0 && f <= 1), "fraction_read " + std::to_string(f));
    if (n < 0) {
      expect(!bytes.error().empty(), "a failed read without an error");
      return false;
    }
    expect(static_cast<std::size_t>(n) <= want, "read returned more than asked for");
    if (n == 0) return true;
    if (out.size() <= kMaxCompared) out.append(buf.data(), static_cast<std::size_t>(n));
  }
}

}  // namespace

int fuzz_gzip(const std::uint8_t* data, std::size_t size) {
  const std::string path = write_input("in/trace.csv.gz", data, size);
  const Reference ref = reference(data, size);
  bool unterminated = false;
  const std::vector<std::string_view> want = lines_of(ref.bytes, unterminated);
  std::size_t longest = 0;
  for (const auto& l : want) longest = std::max(longest, l.size());
  const bool must_read = ref.clean && !ref.trailing && longest < kLongLine;

  // Line by line, as the trace readers read.
  try {
    util::LineReader reader(path);
    std::string_view line;
    std::size_t n = 0;
    while (reader.next(line)) {
      if (ref.compared && ref.clean) {
        expect(n < want.size(), "line " + std::to_string(n + 1) + " read beyond the file's " +
                                    std::to_string(want.size()) + " lines");
        expect(line == want[n], "line " + std::to_string(n + 1) + " differs from the file's");
      }
      expect(reader.line_number() == static_cast<long>(n + 1), "line_number() is not the count of lines read");
      ++n;
    }
    expect(ref.clean, "a gzip member cut short or corrupt was read as whole (" + std::to_string(n) + " lines)");
    if (ref.compared) {
      expect(n == want.size(), std::to_string(n) + " lines read of the file's " + std::to_string(want.size()));
      expect(n == 0 || reader.last_line_unterminated() == unterminated, "last_line_unterminated() is wrong");
    }
  } catch (const util::InputError& e) {
    expect(!must_read, std::string("a whole file refused: ") + e.what());
    expect(e.file() == path, std::string("the error names another file: ") + e.what());
  }

  // Raw bytes in small chunks: the same content, or a failure where the lines failed.
  std::string got;
  bool ok = false;
  try {
    ok = read_in_chunks(path, got);
  } catch (const util::InputError& e) {
    expect(e.file() == path, std::string("the error names another file: ") + e.what());
  }
  if (ok) {
    expect(ref.clean, "a gzip member cut short or corrupt was read whole in chunks");
    if (ref.compared) expect(got == ref.bytes, "the bytes read in chunks differ from the file's content");
  } else {
    expect(!ref.clean || ref.trailing, "a whole file refused when read in chunks");
  }
  return 0;
}

}  // namespace schedlab::fuzz
