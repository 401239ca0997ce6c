// Reads the scenario's `pools:` section (Peloton's elastic resource pools) into
// pools::PoolsConfig (pools/pools_config.h). A tree of pools, each with
// a reservation, a limit and a share per resource (GPUs, CPUs, memory) and a reservation type
// (elastic: lent to others while unused; static: held whether used or not); how often
// entitlements are recomputed and how long a pool may stay above its entitlement before it is
// reclaimed; and how a job finds its pool (rules on its user or its trace's pool column —
// Philly's and Helios' virtual clusters, SWF's queue —, else that column naming a pool, else a
// default). Everything is checked here, with the line of the offending key: a limit below the
// reservation, reservations above what the parent or the cluster has, a rule or default naming
// no pool (with the closest name).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "cluster/topology.h"
#include "pools/pools_config.h"
#include "util/yaml_util.h"

namespace schedlab::config {

// Reads `pools:` (missing = no pools). `cluster` gives the capacity the top-level reservations
// must fit in.
pools::PoolsConfig read_pools(const YAML::Node& root, const util::At& at, const cluster::ClusterSpec& cluster);

}  // namespace schedlab::config
