// How jobs stop and come back: checkpoints, graceful preemption, retries after failures. A
// value type with its defaults, owned by lifecycle/ beside the failure sources; config/ fills it
// from a scenario's `checkpoint:`, `preemption:` and `failures:` sections
// (config/lifecycle_config.*), and sim/ prices stops and counts retries with it.
#pragma once

#include <cstdint>

#include "engine/time.h"
#include "workload/checkpoint.h"

namespace schedlab::lifecycle {

struct LifecycleConfig {
  bool checkpoint_set = false;  // the scenario gave `checkpoint:` (else per trace or model, else none)
  workload::CheckpointCost checkpoint;
  engine::Time grace = 0;  // preemption.grace_s: a preempted job may save for this long
  std::uint32_t max_retries = 3;
  // An elastic job's restart at a new size (`elastic.restart_s`): GPUs held, no progress, for
  // this long; negative = its checkpoint's save plus restore time.
  engine::Time resize_restart = -1;
};

}  // namespace schedlab::lifecycle
