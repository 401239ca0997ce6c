// Reads a scenario's `scheduler:` section into a sched::SchedulerConfig: the parts by name
// (an unknown name answered with the valid ones), their `args` (each part builds once to check
// them), an external policy or an allocation policy (`policy`, whose checks need the perf
// model and are made by the scenario reader once it is read).
#pragma once

#include <yaml-cpp/yaml.h>

#include "sched/scheduler_config.h"
#include "util/yaml_util.h"

namespace schedlab::config {

sched::SchedulerConfig read_scheduler(const YAML::Node& n, const util::At& at);

}  // namespace schedlab::config
