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
  // A policy that decides every job's size (elastic jobs) in place of the start and preemption
  // passes: "optimus"; "" = none, jobs run at their traced size (docs/elastic.md).
  std::string allocation;
  // A policy process decides instead of the parts above (filters still apply).
  ExternalConfig external;
};

}  // namespace schedlab::sched
