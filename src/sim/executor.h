// The seam between the engine and "where jobs run". The simulator's executor computes when
// a run ends from the perf model; the emulator's launches real processes. Neither knows
// which policy chose the placement.
#pragma once

#include <cstdint>

#include "cluster/placement.h"
#include "engine/time.h"
#include "workload/job_spec.h"

namespace schedlab::sim {

using RunId = std::uint64_t;

class Executor {
 public:
  virtual ~Executor() = default;
  // Starts tasks of `job` on `placement` at `now`. The executor reports the run's end by
  // a completion event carrying `run` (simulated) or by a message (emulated).
  virtual void start(RunId run, const workload::JobSpec& job, const cluster::Placement& placement, engine::Time now) = 0;
};

}  // namespace schedlab::sim
