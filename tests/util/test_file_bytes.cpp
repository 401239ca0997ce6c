// FileBytes: the same bytes from a plain file, a gzip file and a pipe; clear errors otherwise.
#include <doctest/doctest.h>

#include <zlib.h>

#include <fstream>
#include <string>

#include "../support/scratch_dir.h"
#include "util/error.h"
#include "util/file_bytes.h"

using schedlab::FileBytes;
using schedlab::InputError;
using schedlab::testing::ScratchDir;

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

TEST_CASE("Util.FileBytes: a plain file and its gzip copy give the same bytes") {
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

TEST_CASE("Util.FileBytes: a file shorter than the gzip magic, and an empty one, are plain") {
  ScratchDir dir("file-bytes-short");
  const auto one = (dir.path / "one").string(), empty = (dir.path / "empty").string();
  std::ofstream(one, std::ios::binary) << "\x1f";
  std::ofstream(empty, std::ios::binary) << "";
  FileBytes a(one), b(empty);
  CHECK(read_all(a, 16) == "\x1f");
  CHECK(read_all(b, 16).empty());
}

TEST_CASE("Util.FileBytes: a missing file, a folder and a corrupt gzip stream are named errors") {
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
