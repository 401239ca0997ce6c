// Pools for hand-worked tests: production and research, 8 GPUs reserved each, share 1,
// entitlements every 60 s, a pool over its entitlement at one recomputation reclaimed at once.
#pragma once

#include <string>

#include "config/pools_config.h"
#include "support/sim_harness.h"

namespace schedlab::testing {

inline pools::PoolSpec reserved_pool(const std::string& name, double reserve_gpus) {
  pools::PoolSpec p;
  p.name = name;
  p.reservation = {reserve_gpus, 0, 0};
  return p;
}

inline pools::PoolsConfig production_and_research() {
  pools::PoolsConfig c;
  c.enabled = true;
  c.pools = {reserved_pool("production", 8), reserved_pool("research", 8)};
  c.period = sec(60);
  c.sustained_periods = 1;
  return c;
}

}  // namespace schedlab::testing
