// The scenario's `emulation:` section: what only an emulation does. Today its failure plan:
// real kills at given trace times (an agent with SIGKILL, so its host is lost until the agent
// is started again; a worker with SIGKILL, so its gang fails), or a number of them at seeded
// random times. A simulation ignores the section; failures it models come from `failures:`.
#pragma once

#include <cstdint>
#include <vector>

#include "util/yaml_util.h"
#include "engine/time.h"

namespace schedlab::config {

inline constexpr std::uint32_t kAnyTarget = ~std::uint32_t{0};

struct PlannedKill {
  enum class What { agent, worker };
  engine::Time at = 0;  // trace time
  What what = What::agent;
  std::uint32_t host = kAnyTarget;  // agent: which host (kAnyTarget: one drawn from the seed)
  std::uint32_t job = kAnyTarget;   // worker: a task of this job (kAnyTarget: of a running job drawn from the seed)
  std::uint32_t rank = 0;           // worker: which task of the job's run
};

struct EmulationConfig {
  std::vector<PlannedKill> kills;  // in time order
};

// Reads `emulation:` (a map; missing = none). Hosts are named h0..h<hosts-1>.
EmulationConfig read_emulation(const YAML::Node& root, const util::At& at, std::uint32_t hosts, std::uint64_t seed);

}  // namespace schedlab::config
