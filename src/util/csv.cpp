// RFC 4180 quoting of CSV fields.
#include "util/csv.h"

namespace schedlab {

std::string csv_field(std::string_view s) {
  std::string out;
  append_csv_field(out, s);
  return out;
}

void append_csv_field(std::string& out, std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
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

}  // namespace schedlab
