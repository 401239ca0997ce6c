// The scheduler's configuration as the scenario gives it (`scheduler:`): which parts, their
// arguments, or an external policy. A value type of its own, so that config/ (which fills it)
// and whoever only reads it need not include the whole scheduler (sched/scheduler.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sched/external/external_config.h"
#include "util/named_args.h"

namespace schedlab::sched {

// Per-part settings from the scenario's `scheduler.args.<part>` map, each with its line.
using PartArgs = util::NamedArgs;

struct SchedulerConfig {
  std::string queue = "fifo";
  std::vector<std::string> admission = {"gang"};
  std::vector<std::string> filters = {"gpu-model"};
  std::string placement = "best-fit";
  std::string preemption = "none";
  std::string backfill = "none";
  std::map<std::string, PartArgs> args;  // per part name
  // A policy process decides instead of the parts above (filters still apply).
  ExternalConfig external;
  // Or a built-in allocation policy decides instead of the passes: "" (the passes), "optimus",
  // "pollux", "afs" (size elastic jobs: sched/elastic_step.h) or one of Gavel's (sched/gavel/gavel_step.h:
  // gavel-max-min-fairness, gavel-finish-time-fairness), its arguments in `args` under its name;
  // filters and the placement part still apply (docs/elastic.md).
  std::string policy;
};

}  // namespace schedlab::sched
