// The one CSV field quoting (RFC 4180) used by every CSV schedlab writes.
#pragma once

#include <string>
#include <string_view>

namespace schedlab {

// The field as is, or in double quotes (inner quotes doubled) when it holds a comma, a
// double quote, CR or LF: trace ids, user and pool names come from users.
std::string csv_field(std::string_view s);
// The same, appended to `out` (writers of a million rows build each row in one buffer).
void append_csv_field(std::string& out, std::string_view s);

}  // namespace schedlab
