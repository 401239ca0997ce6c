// RFC 4180 quoting of CSV fields.
#include "util/csv.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "util/error.h"
#include "util/parse.h"
#include "util/suggest.h"
#include "util/text.h"

namespace schedlab::util {

std::string csv_field(std::string_view s) {
  std::string out;
  append_csv_field(out, s);
  return out;
}

namespace {

// The common field, printable ASCII without a comma or a quote, is copied as it is after one
// pass over it (jobs.csv writes several per job).
bool plain_csv_field(std::string_view s) {
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c >= 0x7f || c == ',' || c == '"') return false;
  }
  return true;
}

}  // namespace

void append_csv_field(std::string& out, std::string_view s) {
  if (plain_csv_field(s)) {
    out.append(s);
    return;
  }
  // A field schedlab writes never holds a control byte (util/text.h): a newline inside quotes
  // is valid RFC 4180, but our readers read a record per line, and a terminal showing the
  // file would obey an ESC. So every line of a CSV we write is one record.
  if (!is_printable(s)) {
    append_csv_field(out, printable(s));
    return;
  }
  if (s.find_first_of(",\"") == std::string_view::npos) {
    out.append(s);
    return;
  }
  out += '"';
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  out += '"';
}

char* put_csv_field(char* p, std::string_view s) {
  if (plain_csv_field(s)) {
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    return p + s.size();
  }
  const std::string field = csv_field(s);
  std::memcpy(p, field.data(), field.size());
  return p + field.size();
}

bool split_csv_fields(std::string_view line, std::vector<std::string_view>& out, std::string& scratch) {
  if (line.find('"') == std::string_view::npos) {  // the common case: no field is quoted
    split_fields(line, ',', out);
    return true;
  }
  out.clear();
  scratch.clear();
  scratch.reserve(line.size());  // never reallocated below: views into it stay valid
  std::size_t i = 0;
  for (;;) {
    if (i < line.size() && line[i] == '"') {
      const std::size_t begin = scratch.size();
      ++i;
      for (;;) {
        if (i >= line.size()) return false;  // the quote is never closed
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            scratch += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        scratch += line[i++];
      }
      out.push_back(std::string_view(scratch).substr(begin));
      if (i == line.size()) return true;
      if (line[i] != ',') return false;  // text after the closing quote
      ++i;
      continue;
    }
    const std::size_t comma = line.find(',', i);
    out.push_back(line.substr(i, comma == std::string_view::npos ? std::string_view::npos : comma - i));
    if (comma == std::string_view::npos) return true;
    i = comma + 1;
  }
}

std::size_t read_csv_header(std::string_view header, const std::string& file, long line, const CsvHeaderSpec& spec,
                            std::span<int> pos) {
  std::vector<std::string_view> fields;
  std::string scratch;  // a header's names may be quoted too (RFC 4180)
  if (!split_csv_fields(header, fields, scratch))
    throw InputError(file, line, "", "the header's quotes do not close before a comma or the line's end");
  std::fill(pos.begin(), pos.end(), -1);
  std::unordered_map<std::string_view, std::size_t> seen;  // a header may be long: no pairwise compare
  seen.reserve(fields.size());
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const std::string_view name = trim(fields[i]);
    // Empty names (a trailing comma) name nothing a row could be read by.
    if (auto [it, added] = seen.emplace(name, i); !added && !name.empty())
      throw InputError(file, line, std::string(name),
                       fmt::format("column '{}' appears twice in the header (columns {} and {})", name,
                                   it->second + 1, i + 1));
    auto it = std::find(spec.names.begin(), spec.names.end(), name);
    if (it != spec.names.end()) {
      pos[static_cast<std::size_t>(it - spec.names.begin())] = static_cast<int>(i);
    } else if (spec.unknown_is_error) {
      const std::vector<std::string> valid(spec.names.begin(), spec.names.end());
      throw InputError(file, line, std::string(name), unknown_name_message("column", std::string(name), valid));
    }
  }
  for (int c = 0; c < spec.required; ++c)
    if (pos[static_cast<std::size_t>(c)] < 0)
      throw InputError(file, line, spec.names[static_cast<std::size_t>(c)],
                       fmt::format("required column is missing{}", spec.missing_hint));
  return fields.size();
}

}  // namespace schedlab::util
