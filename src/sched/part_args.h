// Reading a part's `scheduler.args.<part>` values: unknown argument names are refused with
// suggestions, and every number passes the checked conversions of util/checked.h.
#pragma once

#include <string>
#include <vector>

#include "sched/parts.h"
#include "util/checked.h"
#include "util/error.h"
#include "util/suggest.h"

namespace schedlab::sched {

// Throws when `args` holds a name not in `known` (a typo would otherwise be ignored).
inline void check_arg_names(const PartArgs& args, const std::string& part, const std::vector<std::string>& known) {
  for (const auto& [name, value] : args) {
    bool ok = false;
    for (const auto& k : known) ok = ok || k == name;
    if (!ok)
      throw InputError("", 0, "scheduler.args." + part,
                       unknown_name_message("argument", name, known));
  }
}

// A duration in seconds (>= 0) as microseconds; `fallback` when absent.
inline engine::Time duration_arg(const PartArgs& args, const std::string& part, const std::string& name,
                                 engine::Time fallback) {
  auto it = args.find(name);
  if (it == args.end()) return fallback;
  static const std::string no_file;
  const std::string field = "scheduler.args." + part + "." + name;
  const FieldContext where{no_file, 0, field};
  double s;
  if (!try_parse_double(it->second, s))
    throw InputError("", 0, field, "'" + it->second + "' is not a number of seconds");
  return checked_duration_seconds(s, where);
}

// A positive count; `fallback` when absent.
inline std::size_t count_arg(const PartArgs& args, const std::string& part, const std::string& name,
                             std::size_t fallback) {
  auto it = args.find(name);
  if (it == args.end()) return fallback;
  static const std::string no_file;
  const std::string field = "scheduler.args." + part + "." + name;
  std::int64_t v;
  if (!try_parse_int(it->second, v))
    throw InputError("", 0, field, "'" + it->second + "' is not a positive integer");
  return checked_count(v, FieldContext{no_file, 0, field});
}

}  // namespace schedlab::sched
