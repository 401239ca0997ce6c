// The configuration of resource pools, as config/pools_config.* reads it from a scenario's
// `pools:` section: the pool tree (reservation, limit and share per resource, reservation
// type), the entitlement period, how long a pool may stay above its entitlement, and the
// rules that find a job's pool. Value types, owned by pools/ (which uses them) and filled by
// config/ (which checks them, with the line of each offending key).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "engine/time.h"

namespace schedlab::pools {

// Per resource: GPUs, CPUs (cores), memory (GiB).
using PoolAmounts = std::array<double, 3>;
inline constexpr const char* kPoolResourceKeys[3] = {"gpus", "cpus", "mem_gb"};

struct PoolSpec {
  std::string name;
  std::int32_t parent = -1;  // index of the parent pool (parents come first); -1 at the top
  bool static_reservation = false;
  PoolAmounts reservation{0, 0, 0};
  PoolAmounts limit{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                    std::numeric_limits<double>::infinity()};
  PoolAmounts share{1, 1, 1};
  bool preemptible = true;  // false: its jobs start only within its reservation, and are never reclaimed
  bool leaf = true;         // jobs go to leaf pools only
  long line = 0;
};

// One way of finding a job's pool; the first that matches wins.
struct PoolRule {
  // label: the trace's pool column (virtual cluster, queue); job: the job's own trace id
  // (spread rules only: a trace with neither users nor pools, dealt job by job)
  enum class On { user, label, job };
  On on = On::label;
  std::string equals;           // matches this value exactly...
  std::string prefix;           // ...or values starting with this (when not empty)
  std::string pool;             // the pool it maps to ("" for a spread rule)
  std::vector<std::string> spread;  // or: each distinct value to one of these, by a seeded hash
  long line = 0;
};

struct PoolsConfig {
  bool enabled = false;
  std::vector<PoolSpec> pools;  // parents before children
  engine::Time period = 60 * engine::kMicrosPerSecond;  // entitlement_period_s
  std::uint32_t sustained_periods = 2;  // over its entitlement this many periods: reclaimed
  std::vector<PoolRule> rules;
  std::string default_pool;  // "" = a job that no rule and no column places is an error
  std::string file;          // for messages about jobs (the scenario)
  // `run --pools-report SECONDS`: the pools are reported at the first instant at or after this.
  std::optional<engine::Time> report_at;

  // Index of the pool named `name`, or -1.
  std::int32_t find(const std::string& name) const;
};

}  // namespace schedlab::pools
