// Tests of the row loop the CSV-like trace readers share: which lines are rows, how each
// syntax splits them, the field count and where an error says it is.
#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include "util/error.h"
#include "workload/row_reader.h"
#include "../support/scratch_dir.h"

using namespace schedlab;
using namespace schedlab::workload;
using schedlab::testing::ScratchDir;

namespace {

std::string write(const ScratchDir& dir, const std::string& text) {
  const auto path = (dir.path / "rows.txt").string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Every row's line number and fields, "line:a|b|c".
std::vector<std::string> rows_of(const std::string& path, RowSyntax syntax) {
  RowReader rows(path, syntax);
  std::vector<std::string> out;
  while (rows.next()) {
    rows.split();
    std::string row = std::to_string(rows.line_number()) + ":";
    for (std::size_t i = 0; i < rows.fields().size(); ++i) row += (i ? "|" : "") + std::string(rows[i]);
    out.push_back(row);
  }
  return out;
}

}  // namespace

TEST_CASE("Workload.RowReader.rows_comments_and_blank_lines_by_syntax") {
  ScratchDir dir("row-reader");
  const std::string path = write(dir, "a,b\n\n  \n#x,y\nc,\"d,e\"\n;p  q\r\n");
  struct Case {
    const char* what;
    RowSyntax syntax;
    std::vector<std::string> rows;
  };
  const std::vector<Case> cases = {
      {"separator, no comment sign", {}, {"1:a|b", "4:#x|y", "5:c|d,e", "6:;p  q"}},
      {"separator, '#' comments", RowSyntax{.comment = '#'}, {"1:a|b", "5:c|d,e", "6:;p  q"}},
      {"another separator: no quoting", RowSyntax{.separator = ';'}, {"1:a,b", "4:#x,y", "5:c,\"d,e\"", "6:|p  q"}},
      {"whitespace",
       RowSyntax{.split = RowSyntax::Split::whitespace, .comment = '#'},
       {"1:a,b", "5:c,\"d,e\"", "6:;p|q"}},
      {"quoted csv, a line of spaces is a row",
       RowSyntax{.split = RowSyntax::Split::quoted_csv, .comment = '#', .skip_space_lines = false},
       {"1:a|b", "3:  ", "5:c|d,e", "6:;p  q"}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    CHECK(rows_of(path, c.syntax) == c.rows);
  }
}

TEST_CASE("Workload.RowReader.errors_name_the_file_line_and_column") {
  ScratchDir dir("row-reader-errors");
  const std::string path = write(dir, "# header\na,b,c\na,b");
  RowReader rows(path, RowSyntax{.comment = '#'});
  REQUIRE(rows.next_row(3));
  CHECK(rows.line_number() == 2);
  const util::FieldContext at = rows.at("size");
  CHECK((at.file == path && at.line == 2 && at.column == "size"));
  try {
    rows.fail("size", "too big");
    FAIL("no error");
  } catch (const util::InputError& e) {
    CHECK((e.file() == path && e.line() == 2 && e.field() == "size"));
    CHECK(e.what_here() == "too big");
  }
  try {
    rows.next_row(3);
    FAIL("no error");
  } catch (const util::InputError& e) {
    CHECK(e.line() == 3);
    CHECK(e.what_here() == "expected 3 fields, found 2 (the last line has no newline: truncated file?)");
  }
  CHECK_FALSE(rows.next());

  const std::string open_quote = write(dir, "\"a,b\n");
  RowReader quoted(open_quote, RowSyntax{.split = RowSyntax::Split::quoted_csv});
  REQUIRE(quoted.next());
  CHECK_THROWS_WITH_AS(quoted.split(), doctest::Contains("a quoted field is left open at the end of the file"),
                       util::InputError);
}

// RFC 4180 as the comma-separated readers take it, and as schedlab's writers write it.
TEST_CASE("Workload.RowReader.rfc4180_quoted_fields") {
  ScratchDir dir("row-reader-rfc4180");
  const std::string path = write(dir,
                                 "id,user,note\r\n"
                                 "1,\"doe, jane\",plain\r\n"
                                 "2,\"say \"\"hi\"\"\",\"\"\r\n"
                                 "3,\"two\r\nlines, \"\"quoted\"\"\",x\n"
                                 "4,last,\"\"\"\"\n");
  for (const auto split : {RowSyntax::Split::separator, RowSyntax::Split::quoted_csv}) {
    CAPTURE(static_cast<int>(split));
    CHECK(rows_of(path, RowSyntax{.split = split}) == std::vector<std::string>{"1:id|user|note", "2:1|doe, jane|plain",
                                                                               "3:2|say \"hi\"|",
                                                                               "4:3|two\nlines, \"quoted\"|x",
                                                                               "6:4|last|\""});
  }
  // A row that spans lines is located at its first line; the one after it at its own.
  RowReader rows(path);
  for (int i = 0; i < 4; ++i) REQUIRE(rows.next_row(3));
  CHECK(rows.at("note").line == 4);
  CHECK_THROWS_WITH_AS(rows.fail("note", "bad"), doctest::Contains(":4: note: bad"), util::InputError);
  REQUIRE(rows.next_row(3));
  CHECK(rows.at("note").line == 6);

  const std::string after_quote = write(dir, "a,\"b\"c,d\n");
  RowReader bad(after_quote);
  REQUIRE(bad.next());
  CHECK_THROWS_WITH_AS(bad.split(), doctest::Contains(":1: text after a quoted field's closing quote"),
                       util::InputError);
}
