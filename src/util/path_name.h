// Names that become paths: a scenario's name (results/<name>/), a compare variant's name (a
// folder inside the compare's results). One check for all of them, so that no name from
// input writes outside the folder meant for it: one plain folder name, no separator, no
// "." or "..", no leading dot (schedlab's own staging folders start so), no control byte.
#pragma once

#include <string>
#include <string_view>

#include "util/parse.h"

namespace schedlab::util {

// The longest name accepted (file systems allow 255 bytes; a suffix such as "-compare" and a
// staging folder's ".NAME.tmp-PID" must still fit).
inline constexpr std::size_t kMaxPathNameBytes = 200;

// What is wrong with `name` as one folder name, or "" when nothing is.
std::string path_name_problem(std::string_view name);
// Throws InputError at `where` when path_name_problem(name) is not empty.
void check_path_name(std::string_view name, const FieldContext& where);

}  // namespace schedlab::util
