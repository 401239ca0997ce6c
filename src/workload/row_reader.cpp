// The shared row loop of the line-based trace readers (see row_reader.h).
#include "workload/row_reader.h"

#include "util/csv.h"
#include "util/error.h"

namespace schedlab::workload {

RowReader::RowReader(const std::string& path, RowSyntax syntax) : reader_(path), syntax_(syntax) {}

bool RowReader::next() {
  while (reader_.next(line_)) {
    if (line_.empty() || (syntax_.comment != '\0' && line_.front() == syntax_.comment)) continue;
    if (syntax_.skip_space_lines && util::trim(line_).empty()) continue;
    return true;
  }
  return false;
}

void RowReader::split() {
  switch (syntax_.split) {
    case RowSyntax::Split::separator:
      util::split_fields(line_, syntax_.separator, fields_);
      break;
    case RowSyntax::Split::whitespace:
      util::split_whitespace(line_, fields_);
      break;
    case RowSyntax::Split::quoted_csv:
      if (!util::split_csv_fields(line_, fields_, scratch_))
        fail("", "a quoted field is left open or followed by text before the next comma");
      break;
  }
}

void RowReader::expect_fields(std::size_t expected) const { expect_field_count(reader_, fields_.size(), expected); }

bool RowReader::next_row(std::size_t expected_fields) {
  if (!next()) return false;
  split();
  expect_fields(expected_fields);
  return true;
}

void RowReader::fail(std::string_view column, const std::string& what) const {
  throw util::InputError(reader_.path(), reader_.line_number(), std::string(column), what);
}

}  // namespace schedlab::workload
