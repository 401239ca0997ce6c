// The scenario's top-level `checkpoint:`, `preemption:` and `failures:` sections as validated
// values: how jobs save and restore, how long a preempted job may hold its GPUs to save, and
// where failures come from. Defaults live here (and in sim::LifecycleConfig / FailureRates).
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "cluster/gpu_catalog.h"
#include "cluster/topology.h"
#include "util/yaml_util.h"
#include "sim/failure_source.h"
#include "sim/failures.h"

namespace schedlab::config {

struct LifecycleSettings {
  sim::LifecycleConfig config;  // checkpoint (when set), grace, max_retries
  sim::FailureSpec failures;    // rates and/or a failure trace; none by default
};

// Reads the three sections of a scenario's root map (each optional). A failure trace is
// opened and read to its end against the cluster, so `validate` reports its bad rows too.
LifecycleSettings read_lifecycle(const YAML::Node& root, const util::At& at, const cluster::ClusterSpec& cluster,
                                 const cluster::GpuCatalog& catalog);

}  // namespace schedlab::config
