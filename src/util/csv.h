// CSV shared by every reader and writer: the one field quoting (RFC 4180) used by every CSV
// schedlab writes, and the one reading of a header row whose columns are found by name.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace schedlab::util {

// The field made printable (util/text.h: control bytes, CR and LF included, become `\xNN`,
// so that a record is one line), then in double quotes (inner quotes doubled) when it holds a
// comma or a double quote: trace ids, user and pool names come from users.
std::string csv_field(std::string_view s);
// The same, appended to `out` (writers of a million rows build each row in one buffer).
void append_csv_field(std::string& out, std::string_view s);
// The most bytes the field of `s` takes: a control byte becomes 4 (`\xNN`), a quote 2, plus
// the two quotes around it.
inline std::size_t csv_field_room(std::string_view s) { return 4 * s.size() + 2; }
// The same field written at `p` (util/row_buffer.h), with room for csv_field_room(s) bytes;
// returns its end.
char* put_csv_field(char* p, std::string_view s);

// Splits one line of CSV at its commas, reading RFC 4180 quoted fields ("a,b" and "say ""hi""")
// as csv_field writes them: the inverse of csv_field for a line schedlab wrote. The views point
// into `line` or, for a field with doubled quotes, into `scratch` (valid until its next use).
// False for a quote left open or text after a closing quote; `out` is then incomplete.
bool split_csv_fields(std::string_view line, std::vector<std::string_view>& out, std::string& scratch);

// What a reader expects of a header row (read_csv_header).
struct CsvHeaderSpec {
  std::span<const char* const> names;  // the columns the reader knows
  int required = 0;                    // the first `required` names must be present
  bool unknown_is_error = false;       // else columns the reader does not know are ignored
  std::string_view missing_hint;       // after "required column is missing", e.g. " (is this X?)"
};

// Reads the header row `header` (line `line` of `file`; a UTF-8 BOM is already gone, see
// LineReader) of a CSV whose columns are found by name, in any order: pos[i] becomes the
// index of spec.names[i], -1 when absent, and the number of columns is returned. Every CSV
// reader's header goes through here, so that each refuses the same things, at the header's
// line and naming the column: a name given twice (which copy would a row's value come
// from?), an unknown name when the reader says so, a required name missing.
std::size_t read_csv_header(std::string_view header, const std::string& file, long line, const CsvHeaderSpec& spec,
                            std::span<int> pos);

}  // namespace schedlab::util
