// The one check of names that become folder names.
#include "util/path_name.h"

#include <fmt/format.h>

#include "util/error.h"
#include "util/text.h"

namespace schedlab::util {

std::string path_name_problem(std::string_view name) {
  if (name.empty()) return "an empty name cannot name a folder";
  if (name.size() > kMaxPathNameBytes) return fmt::format("is {} bytes long; a name has at most {}", name.size(), kMaxPathNameBytes);
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f) return "holds a control character; a name is printable text";
  if (name.find_first_of("/\\") != std::string_view::npos)
    return "holds a path separator; a name is one folder name (letters, digits, '-', '_', '.')";
  if (name.front() == '.') return "starts with '.'; a name is one visible folder name (letters, digits, '-', '_', '.')";
  return {};
}

void check_path_name(std::string_view name, const FieldContext& where) {
  std::string problem = path_name_problem(name);
  if (problem.empty()) return;
  // Shown escaped (util/text.h): the name is what is wrong, and may hold anything.
  throw InputError(where.file, where.line, std::string(where.column), fmt::format("'{}' {}", printable(name), problem));
}

}  // namespace schedlab::util
