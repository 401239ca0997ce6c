// Text from input (util/text.h), CSV headers and fields (util/csv.h), and the byte order mark
// a line reader leaves out: R28, R30b, R32 and R37 of the robustness reproducers.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../support/input_errors.h"
#include "util/csv.h"
#include "util/line_reader.h"
#include "util/text.h"
#include "workload/string_pool.h"

using namespace schedlab;
using namespace schedlab::testing;
namespace fs = std::filesystem;

TEST_CASE("Util.Text.utf8_validation") {
  CHECK(util::valid_utf8(""));
  CHECK(util::valid_utf8("plain ascii, with \x1b control bytes\n"));
  CHECK(util::valid_utf8("gr\xc3\xbc\xc3\x9f \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80"));
  CHECK(util::utf8_error_at("a\xff\xfe"
                            "b") == 1);
  CHECK(util::utf8_error_at("ab\xc3") == 2);            // cut short
  CHECK(util::utf8_error_at("\xc0\xaf") == 0);          // overlong '/'
  CHECK(util::utf8_error_at("\xe0\x80\xaf") == 0);      // overlong, three bytes
  CHECK(util::utf8_error_at("x\xed\xa0\x80") == 1);     // a surrogate
  CHECK(util::utf8_error_at("\xf4\x90\x80\x80") == 0);  // past U+10FFFF
  CHECK(util::utf8_error_at("ok\x80") == 2);            // a lone continuation byte
}

TEST_CASE("Util.Text.printable_escapes_control_bytes_and_bad_utf8") {
  CHECK(util::printable("job-1 gr\xc3\xbc\xc3\x9f") == "job-1 gr\xc3\xbc\xc3\x9f");
  CHECK(util::is_printable("job-1 \xe6\x97\xa5"));
  CHECK(util::printable("t\x1b[2J\x1b[31mRED\nfake: line") == "t\\x1b[2J\\x1b[31mRED\\x0afake: line");
  CHECK(util::printable(std::string("a\0b\r\x7f", 5)) == "a\\x00b\\x0d\\x7f");
  CHECK(util::printable("u\xff\xfe") == "u\\xff\\xfe");
  CHECK(util::printable("csi \xc2\x9b"
                        "31m") == "csi \\xc2\\x9b31m");  // C1 control, a terminal's CSI
  CHECK_FALSE(util::is_printable("tab\there"));
  for (const std::string& s : std::vector<std::string>{"\x1b[0m", "a\xff", "\xc2\x85", std::string("\0", 1)}) {
    CAPTURE(s);
    CHECK(util::is_printable(util::printable(s)));
    CHECK(util::valid_utf8(util::printable(s)));
  }
}

TEST_CASE("Util.Csv.fields_are_one_line") {
  // R32: a newline inside a field is escaped, so that every line of a CSV we write is one record.
  CHECK(util::csv_field("doe,\njane \"x\"") == "\"doe,\\x0ajane \"\"x\"\"\"");
  CHECK(util::csv_field("a\rb") == "a\\x0db");
  CHECK(util::csv_field("plain") == "plain");
  CHECK(util::csv_field("a,b") == "\"a,b\"");
}

TEST_CASE("Util.Csv.split_reads_what_csv_field_writes") {
  std::vector<std::string_view> f;
  std::string scratch;
  REQUIRE(util::split_csv_fields("1,plain,,x", f, scratch));
  CHECK(f == std::vector<std::string_view>{"1", "plain", "", "x"});
  const std::string user = "doe,\njane \"x\"";
  const std::string line = "0," + util::csv_field(user) + ",\"a,b\"," + util::csv_field("");
  REQUIRE(util::split_csv_fields(line, f, scratch));
  CHECK(f == std::vector<std::string_view>{"0", "doe,\\x0ajane \"x\"", "a,b", ""});
  CHECK_FALSE(util::split_csv_fields("0,\"open", f, scratch));
  CHECK_FALSE(util::split_csv_fields("0,\"a\"b,1", f, scratch));
}

TEST_CASE("Util.Csv.header_names_once") {
  const std::vector<const char*> names = {"id", "submit_s", "user"};
  std::vector<int> pos(names.size());
  CHECK(util::read_csv_header(" user ,id,extra", "t.csv", 1, util::CsvHeaderSpec{names, 1, false, ""}, pos) == 3);
  CHECK(pos == std::vector<int>{1, -1, 0});

  // R30b: a column given twice, at the header's line, naming it.
  const util::InputError dup = input_error_of([&] {
    util::read_csv_header("id,submit_s,user,id", "t.csv", 1, util::CsvHeaderSpec{names, 1, false, ""}, pos);
  });
  CHECK(dup.line() == 1);
  CHECK(dup.field() == "id");
  CHECK(says(dup, "column 'id' appears twice in the header (columns 1 and 4)"));
  // Also a column the reader would ignore.
  CHECK(says(input_error_of([&] {
               util::read_csv_header("id,x,x", "t.csv", 1, util::CsvHeaderSpec{names, 0, false, ""}, pos);
             }),
             "column 'x' appears twice"));
  // Empty names (trailing commas) name nothing.
  CHECK_NOTHROW(util::read_csv_header("id,,", "t.csv", 1, util::CsvHeaderSpec{names, 1, false, ""}, pos));

  const util::InputError unknown = input_error_of([&] {
    util::read_csv_header("id,usr", "t.csv", 1, util::CsvHeaderSpec{names, 1, true, ""}, pos);
  });
  CHECK(unknown.field() == "usr");
  CHECK(says(unknown, "did you mean 'user'?"));
  const util::InputError missing = input_error_of([&] {
    util::read_csv_header("user", "t.csv", 3, util::CsvHeaderSpec{names, 2, false, " (is this X?)"}, pos);
  });
  CHECK(missing.line() == 3);
  CHECK(missing.field() == "id");
  CHECK(says(missing, "required column is missing (is this X?)"));
}

TEST_CASE("Util.LineReader.leaves_out_a_byte_order_mark") {
  const fs::path path = fs::temp_directory_path() / ("schedlab-bom-" + std::to_string(::getpid()) + ".csv");
  {
    std::ofstream out(path, std::ios::binary);
    out << "\xEF\xBB\xBFid,user\n\xEF\xBB\xBF" "0,u\n";
  }
  util::LineReader reader(path.string());
  std::string_view line;
  REQUIRE(reader.next(line));
  CHECK(line == "id,user");
  REQUIRE(reader.next(line));
  CHECK(line == "\xEF\xBB\xBF" "0,u");  // only at the start of the file
  fs::remove(path);
}

TEST_CASE("Workload.StringPool.stores_printable_text") {
  workload::StringPool pool;
  const auto bad = pool.intern("u\xff\xfe");
  CHECK(pool.str(bad) == "u\\xff\\xfe");
  CHECK(pool.intern("u\xff\xfe") == bad);
  const auto esc = pool.intern("t\x1b[2Jx");
  CHECK(pool.str(esc) == "t\\x1b[2Jx");
  CHECK(pool.str(pool.intern("gr\xc3\xbc\xc3\x9f")) == "gr\xc3\xbc\xc3\x9f");
}
