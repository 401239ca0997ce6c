// The bounds of util/input_limits.h, where every reader meets them: a line longer than
// kMaxLineBytes (LineReader, plain and gzip), JSON nested deeper than kMaxJsonDepth
// (parse_json), and a truncated gzip named with the line reached.
#include <doctest/doctest.h>

#include <zlib.h>

#include <fstream>
#include <string>

#include "../support/scratch_dir.h"
#include "util/input_limits.h"
#include "util/json_read.h"
#include "util/line_reader.h"

using namespace schedlab;
using schedlab::testing::ScratchDir;

namespace {
void write_gzip(const std::string& path, const std::string& text, std::size_t keep = std::string::npos) {
  const std::string tmp = path + ".full";
  gzFile w = gzopen(tmp.c_str(), "wb");
  REQUIRE(w != nullptr);
  gzwrite(w, text.data(), static_cast<unsigned>(text.size()));
  gzclose(w);
  std::string bytes = schedlab::testing::file_text(tmp);
  std::ofstream(path, std::ios::binary) << bytes.substr(0, keep);
}

// The lines of a file until it ends or throws; the error's text, or "".
std::string read_lines(const std::string& path, long& lines) {
  util::LineReader r(path);
  std::string_view line;
  lines = 0;
  try {
    while (r.next(line)) ++lines;
  } catch (const util::ReadError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("Util.LineReader.line_bound_a_line_past_k_max_line_bytes_is_a_located_error_one_at_the_bound_is_not") {
  ScratchDir dir("line-bound");
  const auto plain = (dir.path / "t.csv").string(), gz = (dir.path / "t.csv.gz").string();
  const std::string at_bound = "a,b\n" + std::string(util::kMaxLineBytes, 'x') + "\nc,d\n";
  std::ofstream(plain, std::ios::binary) << at_bound;
  long lines = 0;
  CHECK(read_lines(plain, lines).empty());
  CHECK(lines == 3);
  const std::string past = "a,b\n" + std::string(util::kMaxLineBytes + 1, 'x') + "\nc,d\n";
  std::ofstream(plain, std::ios::binary) << past;
  const std::string expected = ":2: line 2 is longer than 16 MiB (16777216 bytes), the most a line of input may hold";
  CHECK(read_lines(plain, lines).ends_with(expected));
  CHECK(lines == 1);
  // The same from gzip, and from a line with no end of line at all.
  write_gzip(gz, past);
  CHECK(read_lines(gz, lines).ends_with(expected));
  write_gzip(gz, "a,b\n" + std::string(util::kMaxLineBytes + 5, 'x'));
  CHECK(read_lines(gz, lines).ends_with(expected));
}

TEST_CASE("Util.LineReader.truncated_gzip_the_error_names_the_file_and_the_line_reached") {
  ScratchDir dir("line-gzip-cut");
  const auto gz = (dir.path / "t.csv.gz").string();
  std::string text = "id,submit_s,duration_s,tasks,gpus_per_task\n";
  for (int i = 0; i < 3000; ++i) text += std::to_string(i) + "," + std::to_string(i * 7 % 1000) + ",60,1,1\n";
  write_gzip(gz, text, 5000);
  long lines = 0;
  const std::string error = read_lines(gz, lines);
  CHECK(error.starts_with(gz + ":" + std::to_string(lines + 1) + ": read error: the gzip data ends inside member 1"));
  CHECK(lines > 10);
  CHECK(lines < 3001);
}

TEST_CASE("Util.JsonRead.depth_nesting_up_to_k_max_json_depth_parses_deeper_is_refused_while_parsing") {
  const auto nested = [](int depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  CHECK(util::parse_json(nested(util::kMaxJsonDepth)).is_array());
  CHECK_THROWS_WITH_AS(util::parse_json(nested(util::kMaxJsonDepth + 1)),
                       "nested deeper than 64 levels (the most any JSON schedlab reads may nest)", util::JsonReadError);
  // A million levels: refused at level 65, before a deep tree exists (whose printing and
  // destruction would recurse a million times).
  const std::string deep = R"({"type":"decisions","decisions":)" + nested(1'000'000) + "}";
  try {
    util::parse_json(deep);
    FAIL("parsed");
  } catch (const util::JsonReadError& e) {
    CHECK(e.too_deep());
  }
  std::string objects;
  for (int i = 0; i <= util::kMaxJsonDepth; ++i) objects += R"({"a":)";
  objects += "1" + std::string(util::kMaxJsonDepth + 1, '}');
  CHECK_THROWS_AS(util::parse_ordered_json(objects), util::JsonReadError);
}

TEST_CASE("Util.JsonRead.errors_nlohmanns_messages_without_its_tag_ordered_keys_kept") {
  try {
    util::parse_json("{\"a\": }");
    FAIL("parsed");
  } catch (const util::JsonReadError& e) {
    CHECK(!e.too_deep());
    CHECK(std::string(e.what()).starts_with("parse error at line 1, column 7: "));
  }
  CHECK_THROWS_AS(util::parse_json(""), util::JsonReadError);
  CHECK_THROWS_AS(util::parse_json("[1] 2"), util::JsonReadError);
  CHECK(util::parse_ordered_json(R"({"z":1,"a":2})").dump() == R"({"z":1,"a":2})");
}
