// The scenario's `workload.services:` and `workload.cron:` lists (Marathon services, Chronos
// cron jobs) and the keys that place them on the trace's clock (`epoch`, `until_s`), read into
// workload::LongRunningWork. Every key is known and every number checked, with the line of
// the offending key: a malformed schedule or period, a parent that is not an earlier cron
// entry, a pool that does not exist (with the closest name), scale steps out of order.
#pragma once

#include <yaml-cpp/yaml.h>

#include "cluster/gpu_catalog.h"
#include "config/pools_config.h"
#include "util/yaml_util.h"
#include "workload/long_running.h"

namespace schedlab::config {

// The keys of `workload:` read here.
inline const std::vector<std::string> kLongRunningKeys{"services", "cron", "epoch", "until_s"};

// `has_trace`: the workload also has a trace or generator (an unbounded schedule then ends
// with it; without one it needs `until_s`).
workload::LongRunningWork read_long_running(const YAML::Node& workload, const util::At& at,
                                            const cluster::GpuCatalog& catalog, const pools::PoolsConfig& pools,
                                            bool has_trace);

}  // namespace schedlab::config
