// The shared row loop of the line-based trace readers (see row_reader.h).
#include "workload/row_reader.h"

#include <algorithm>

#include "util/csv.h"
#include "util/error.h"

namespace schedlab::workload {

RowReader::RowReader(const std::string& path, RowSyntax syntax) : reader_(path), syntax_(syntax) {}

bool RowReader::next() {
  row_line_ = 0;
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
      if (syntax_.separator == ',')
        split_quoted();
      else
        util::split_fields(line_, syntax_.separator, fields_);
      break;
    case RowSyntax::Split::whitespace:
      util::split_whitespace(line_, fields_);
      break;
    case RowSyntax::Split::quoted_csv:
      split_quoted();
      break;
  }
}

void RowReader::split_quoted() {
  if (line_.find('"') != std::string_view::npos) {
    // Quotes inside a quoted field are doubled, so a record whose quotes are odd in number has
    // a field still open: RFC 4180 lets it hold the line break, and the record goes on.
    auto quotes = std::count(line_.begin(), line_.end(), '"');
    if (quotes % 2 == 1) {
      row_line_ = reader_.line_number();
      record_.assign(line_);
      std::string_view more;
      while (quotes % 2 == 1) {
        if (!reader_.next(more)) fail("", "a quoted field is left open at the end of the file");
        record_ += '\n';
        record_.append(more);
        quotes += std::count(more.begin(), more.end(), '"');
      }
      line_ = record_;
    }
  }
  if (!util::split_csv_fields(line_, fields_, scratch_))
    fail("", "text after a quoted field's closing quote, before the next comma");
}

void RowReader::expect_fields(std::size_t expected) const { expect_field_count(reader_, fields_.size(), expected); }

bool RowReader::next_row(std::size_t expected_fields) {
  if (!next()) return false;
  split();
  expect_fields(expected_fields);
  return true;
}

void RowReader::fail(std::string_view column, const std::string& what) const {
  throw util::InputError(reader_.path(), row_line(), std::string(column), what);
}

}  // namespace schedlab::workload
