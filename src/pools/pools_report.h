// `schedlab run --pools-report SECONDS`: the pool tree at one instant of a run, each pool with
// its reservation, limit, demand (what its jobs hold and wait for), entitlement and allocation
// per resource, indented by depth, as Peloton's resource-pool view shows them. What was
// computed at the last entitlement period before that instant; allocations as of the instant.
#pragma once

#include <string>

#include "engine/time.h"
#include "pools/pool_book.h"

namespace schedlab::pools {

std::string format_pools_report(const PoolBook& book, engine::Time now);

}  // namespace schedlab::pools
