// Reading a scenario's `elastic:` section (docs/elastic.md, "Elastic jobs"): the GPU range
// given to jobs whose trace has none, as scales of their traced size, and what a resize costs.
#pragma once

#include <yaml-cpp/yaml.h>

#include "util/yaml_util.h"
#include "workload/elastic_range.h"

namespace schedlab::config {

// `elastic: {min_scale, max_scale, restart_s}`, every key optional; a missing section: the defaults.
workload::ElasticDefaults read_elastic(const YAML::Node& n, const util::At& at);

}  // namespace schedlab::config
