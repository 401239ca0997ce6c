// FileBytes: the same bytes from a plain file, a gzip file and a pipe; gzip read to its
// trailer (truncated, cut at a flush point, wrong CRC); clear errors otherwise.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../support/scratch_dir.h"
#include "util/error.h"
#include "util/file_bytes.h"

using schedlab::testing::ScratchDir;
using schedlab::util::FileBytes;
using schedlab::util::InputError;

namespace {
std::string read_all(FileBytes& f, std::size_t block) {
  std::string out, buf(block, '\0');
  for (;;) {
    const long n = f.read(buf.data(), block);
    REQUIRE(n >= 0);
    if (n == 0) return out;
    out.append(buf.data(), static_cast<std::size_t>(n));
  }
}

std::string sample_text() {
  std::string s;
  for (int i = 0; i < 5000; ++i) s += "id,submit," + std::to_string(i) + "\n";
  return s;
}
}  // namespace

TEST_CASE("Util.FileBytes.a_plain_file_and_its_gzip_copy_give_the_same_bytes") {
  ScratchDir dir("file-bytes");
  const std::string text = sample_text();
  const auto plain = (dir.path / "t.csv").string(), gz = (dir.path / "t.csv.gz").string();
  std::ofstream(plain, std::ios::binary) << text;
  gzFile w = gzopen(gz.c_str(), "wb");
  REQUIRE(w != nullptr);
  gzwrite(w, text.data(), static_cast<unsigned>(text.size()));
  gzclose(w);

  FileBytes a(plain), b(gz);
  CHECK(read_all(a, 4096) == text);
  CHECK(a.fraction_read() == 1.0);
  CHECK(read_all(b, 1000) == text);
  CHECK(b.fraction_read() > 0.0);
}

TEST_CASE("Util.FileBytes.a_file_shorter_than_the_gzip_magic_and_an_empty_one_are_plain") {
  ScratchDir dir("file-bytes-short");
  const auto one = (dir.path / "one").string(), empty = (dir.path / "empty").string();
  std::ofstream(one, std::ios::binary) << "\x1f";
  std::ofstream(empty, std::ios::binary) << "";
  FileBytes a(one), b(empty);
  CHECK(read_all(a, 16) == "\x1f");
  CHECK(read_all(b, 16).empty());
}

TEST_CASE("Util.FileBytes.a_missing_file_a_folder_and_a_corrupt_gzip_stream_are_named_errors") {
  ScratchDir dir("file-bytes-bad");
  CHECK_THROWS_WITH_AS(FileBytes((dir.path / "none.csv").string()), doctest::Contains("cannot open file"), InputError);
  CHECK_THROWS_WITH_AS(FileBytes(dir.path.string()), doctest::Contains("it is a directory"), InputError);
  const auto bad = (dir.path / "bad.gz").string();
  std::ofstream(bad, std::ios::binary) << "\x1f\x8bnot really gzip at all, just its magic";
  FileBytes f(bad);
  char buf[64];
  CHECK(f.read(buf, sizeof buf) == -1);
  CHECK(f.error().rfind("read error: ", 0) == 0);
  CHECK(f.error().find("<fd:") == std::string::npos);
}

// --- gzip read to its trailer (issue 25, R27 and R27b) ---------------------------------------

namespace {
// `text` as one gzip member; with `flush_every`, a full flush after each such run of input,
// and the compressed size at each flush in `flush_points` (a cut there ends on a byte boundary
// that gzread took for a whole stream).
std::string gzip_of(const std::string& text, std::size_t flush_every = 0, std::vector<std::size_t>* flush_points = nullptr,
                    int level = 6) {
  z_stream zs{};
  REQUIRE(deflateInit2(&zs, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out;
  std::size_t at = 0;
  const std::size_t step = flush_every ? flush_every : text.size();
  do {
    const std::size_t n = std::min(step, text.size() - at);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data() + at));
    zs.avail_in = static_cast<uInt>(n);
    at += n;
    const int flush = at == text.size() ? Z_FINISH : Z_FULL_FLUSH;
    int rc;
    do {
      char buf[4096];
      zs.next_out = reinterpret_cast<Bytef*>(buf);
      zs.avail_out = sizeof buf;
      rc = deflate(&zs, flush);
      out.append(buf, sizeof buf - zs.avail_out);
    } while (zs.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    if (flush_points && flush == Z_FULL_FLUSH) flush_points->push_back(out.size());
  } while (at < text.size());
  deflateEnd(&zs);
  return out;
}

// All of a file's bytes, or its error: "" and the error, or the bytes and "".
std::pair<std::string, std::string> read_file(const std::string& path) {
  FileBytes f(path);
  std::string out, buf(1 << 16, '\0');
  for (;;) {
    const long n = f.read(buf.data(), buf.size());
    if (n < 0) return {"", f.error()};
    if (n == 0) return {out, ""};
    out.append(buf.data(), static_cast<std::size_t>(n));
  }
}

void write_bytes(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }
}  // namespace

TEST_CASE("Util.Gzip.truncated_every_cut_of_a_member_is_an_error_wherever_it_falls") {
  ScratchDir dir("gzip-cut");
  const std::string text = sample_text();
  const std::string gz = gzip_of(text);
  const auto path = (dir.path / "t.csv.gz").string();
  // From 2 bytes (the magic) to one byte short of the trailer's end: header, data, trailer.
  std::vector<std::size_t> cuts;
  for (std::size_t cut = 2; cut < gz.size(); cut += cut < 20 || cut + 20 > gz.size() ? 1 : 97) cuts.push_back(cut);
  for (std::size_t cut : cuts) {
    CAPTURE(cut);
    write_bytes(path, gz.substr(0, cut));
    const auto [bytes, error] = read_file(path);
    CHECK(error.find("the file is truncated") != std::string::npos);
    CHECK(error.rfind("read error: ", 0) == 0);
  }
  write_bytes(path, gz);
  CHECK(read_file(path) == std::pair<std::string, std::string>{text, ""});
}

TEST_CASE("Util.Gzip.cut_at_flush_a_member_cut_where_it_was_flushed_is_still_truncated") {
  ScratchDir dir("gzip-flush");
  const std::string text = sample_text();
  std::vector<std::size_t> flushes;
  const std::string gz = gzip_of(text, 1000, &flushes);
  REQUIRE(flushes.size() > 10);
  const auto path = (dir.path / "t.csv.gz").string();
  for (std::size_t cut : flushes) {
    CAPTURE(cut);
    write_bytes(path, gz.substr(0, cut));
    CHECK(read_file(path).second.find("the file is truncated") != std::string::npos);
  }
  write_bytes(path, gz);
  CHECK(read_file(path).first == text);
}

TEST_CASE("Util.Gzip.trailer_a_wrong_crc_32_or_length_in_the_trailer_is_corrupt_data") {
  ScratchDir dir("gzip-trailer");
  const std::string text = sample_text();
  const std::string gz = gzip_of(text);
  const auto path = (dir.path / "t.csv.gz").string();
  std::string bad_crc = gz;
  bad_crc[gz.size() - 8] ^= 1;
  write_bytes(path, bad_crc);
  CHECK(read_file(path).second == "read error: corrupt gzip data in member 1: incorrect data check");
  std::string bad_length = gz;
  bad_length[gz.size() - 4] ^= 1;
  write_bytes(path, bad_length);
  CHECK(read_file(path).second == "read error: corrupt gzip data in member 1: incorrect length check");
  std::string bad_data = gz;
  bad_data[gz.size() / 2] ^= 0x55;
  write_bytes(path, bad_data);
  CHECK(read_file(path).second.rfind("read error: corrupt gzip data in member 1: ", 0) == 0);
}

TEST_CASE("Util.Gzip.members_one_after_another_zero_padding_and_what_else_may_follow") {
  ScratchDir dir("gzip-members");
  const auto path = (dir.path / "t.csv.gz").string();
  const std::string a = "id,submit\n1,2\n", b = sample_text();
  write_bytes(path, gzip_of(a) + gzip_of(b) + gzip_of(""));
  CHECK(read_file(path) == std::pair<std::string, std::string>{a + b, ""});
  write_bytes(path, gzip_of(a) + std::string(1000, '\0'));
  CHECK(read_file(path) == std::pair<std::string, std::string>{a, ""});
  write_bytes(path, gzip_of(a) + "trailing text");
  CHECK(read_file(path).second.find("bytes that are not gzip data after gzip member 1") != std::string::npos);
  write_bytes(path, gzip_of(a) + std::string(3, '\0') + "x");
  CHECK(read_file(path).second.find("bytes other than zeros") != std::string::npos);
  // A second member cut short is as truncated as a first one.
  const std::string second = gzip_of(b);
  write_bytes(path, gzip_of(a) + second.substr(0, second.size() / 2));
  CHECK(read_file(path).second.find("ends inside member 2") != std::string::npos);
  // A second member whose magic is split across two of the 256 KiB blocks the input is read in:
  // a stored (level 0) first member of 2^18 - 1 bytes.
  std::string first, xs;
  for (std::size_t n = (std::size_t{1} << 18) - 80; n < (std::size_t{1} << 18); ++n) {
    xs.assign(n, 'x');
    first = gzip_of(xs, 0, nullptr, 0);
    if (first.size() == (std::size_t{1} << 18) - 1) break;
  }
  REQUIRE(first.size() == (std::size_t{1} << 18) - 1);
  write_bytes(path, first + gzip_of(a));
  CHECK(read_file(path) == std::pair<std::string, std::string>{xs + a, ""});
}

TEST_CASE("Util.FileBytes.gzip_and_plain_text_through_a_pipe") {
  ScratchDir dir("file-bytes-pipe");
  const std::string text = sample_text();
  for (const std::string& bytes : {gzip_of(text), text}) {
    const auto fifo = (dir.path / "fifo").string();
    ::unlink(fifo.c_str());
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << bytes; });
    const auto [got, error] = read_file(fifo);
    writer.join();
    CHECK(error.empty());
    CHECK(got == text);
  }
}
