// The reader of a part's `scheduler.args.<part>` values (util/named_args.h): every name
// checked (a typo is answered with the closest valid name), every number through
// util/checked.h, every error at the value's own line naming `scheduler.args.<part>.<arg>`.
#pragma once

#include <string>
#include <vector>

#include "sched/scheduler_config.h"
#include "util/named_args.h"

namespace schedlab::sched {

// Throws InputError for an arg name not in `known` (none: the part takes no args).
inline util::ArgReader part_args(const PartArgs& args, const std::string& part, std::vector<std::string> known = {}) {
  return util::ArgReader(args, util::ArgsOwner{"scheduler.args." + part, part + " arg", "", part + " takes no args"},
                         std::move(known));
}

}  // namespace schedlab::sched
