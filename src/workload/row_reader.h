// The loop over a line-based trace's rows that every CSV-like reader shares: the next line
// that holds a row (blank lines and comment lines passed over), its fields split in place,
// their count checked, and the row's file:line for every message about one of its fields.
// Readers of these formats own a RowReader (RowTraceSource, for the public formats) and
// parse the fields; the header row, when a format has one, is read from lines() first.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "util/line_reader.h"
#include "util/parse.h"
#include "workload/trace_reader_util.h"

namespace schedlab::workload {

// How a format writes its rows.
struct RowSyntax {
  enum class Split : unsigned char {
    separator,   // on `separator`; with ',' a field may be quoted as RFC 4180 allows (the public CSVs)
    whitespace,  // on runs of spaces and tabs (SWF)
    quoted_csv,  // on commas, fields quoted as RFC 4180 and csv_field write them (the native format)
  };
  Split split = Split::separator;
  char separator = ',';
  // A line starting with it is not a row ('\0': none).
  char comment = '\0';
  // Lines of spaces only are passed over like empty ones; the native format, which schedlab
  // writes itself, reads such a line as a row (and refuses it by its field count).
  bool skip_space_lines = true;
};

class RowReader {
 public:
  // Throws InputError when the file cannot be opened.
  explicit RowReader(const std::string& path, RowSyntax syntax = {});

  // The next line that holds a row, as line(); false at the end of the file.
  bool next();
  // Splits line() into fields(). A comma-separated row may be quoted (RFC 4180): a quoted field
  // may hold commas, doubled quotes and line breaks (the row then goes on to the line that
  // closes it, and line() is the whole record); a quote left open at the end of the file, or
  // text after a closing quote, is an InputError. Rows without a quote take the plain split.
  void split();
  // Throws "expected N fields, found M" (expect_field_count) unless fields() has `expected`.
  void expect_fields(std::size_t expected) const;
  // next(), split() and expect_fields(); false at the end.
  bool next_row(std::size_t expected_fields);

  std::string_view line() const { return line_; }
  const std::vector<std::string_view>& fields() const { return fields_; }
  std::string_view operator[](std::size_t i) const { return fields_[i]; }

  // Where a field of the current row is, for the checked parsers (util/parse.h).
  util::FieldContext at(std::string_view column) const {
    return util::FieldContext{reader_.path(), row_line(), column};
  }
  // An InputError at the current row's `column` (may be "" for the row as a whole).
  [[noreturn]] void fail(std::string_view column, const std::string& what) const;

  // The line the current row starts on (a row whose quoted field holds a line break spans lines).
  long line_number() const { return row_line(); }
  const std::string& path() const { return reader_.path(); }
  double fraction_read() const { return reader_.fraction_read(); }
  // The lines beneath, for a header that a format reads its own way.
  util::LineReader& lines() { return reader_; }
  const util::LineReader& lines() const { return reader_; }

 private:
  void split_quoted();
  long row_line() const { return row_line_ > 0 ? row_line_ : reader_.line_number(); }

  util::LineReader reader_;
  RowSyntax syntax_;
  long row_line_ = 0;
  std::string record_;  // a row whose quoted field spans lines, joined
  std::string_view line_;
  std::vector<std::string_view> fields_;
  std::string scratch_;  // unquoted fields (quoted_csv)
};

// A public-format reader over a RowReader: rows are numbered by its lines, and a streamed
// file reports how much of it is read.
class RowTraceSource : public TraceReaderSource {
 protected:
  RowTraceSource(const std::string& path, const TraceOptions& options, Order order, RowSyntax syntax = {})
      : TraceReaderSource(path, options, order), rows_(path, syntax) {}

  long row_line() const override { return rows_.line_number(); }
  double file_fraction() const override { return rows_.fraction_read(); }

  RowReader rows_;
};

}  // namespace schedlab::workload
