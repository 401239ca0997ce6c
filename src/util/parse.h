// Field splitting and strict number parsing for trace rows. Every failure names the file,
// line and column, so that a broken row is reported where it is.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace schedlab::util {

// Splits on `sep` into `out` (reused between rows). No quoting: trace CSVs have none, and
// a quoted field is reported by the caller's column checks rather than silently accepted.
void split_fields(std::string_view line, char sep, std::vector<std::string_view>& out);
// Splits on runs of spaces and tabs (SWF).
void split_whitespace(std::string_view line, std::vector<std::string_view>& out);

std::string_view trim(std::string_view s);

// Where a field came from, for error messages.
struct FieldContext {
  const std::string& file;
  long line;
  std::string_view column;
};

// Parsers that throw InputError("file:line: column: ...") on anything that is not a
// complete number of the right kind (a float where an integer is expected is an error).
std::int64_t parse_int(std::string_view s, const FieldContext& where);
double parse_double(std::string_view s, const FieldContext& where);
// As above, with a lower bound checked and named in the message.
std::int64_t parse_int_at_least(std::string_view s, std::int64_t min, const FieldContext& where);
double parse_double_at_least(std::string_view s, double min, const FieldContext& where);

// Non-throwing forms for hot paths that fall back to an error path themselves.
bool try_parse_int(std::string_view s, std::int64_t& out);
bool try_parse_double(std::string_view s, double& out);

}  // namespace schedlab::util
