// Reads a scenario's `scheduler.external` (docs/external-scheduler.md): the policy's command,
// its reply timeout, what an invalid decision does, and options handed to it as JSON.
#pragma once

#include <yaml-cpp/yaml.h>

#include "util/yaml_util.h"
#include "sched/external/external_config.h"

namespace schedlab::config {

sched::ExternalConfig read_external_scheduler(const YAML::Node& n, const util::At& at);

}  // namespace schedlab::config
