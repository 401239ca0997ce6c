// The seam between the engine and "where jobs run". The simulator's executor computes when
// a run ends from the perf model; the emulator's launches real processes. Neither knows
// which policy chose the placement.
#pragma once

#include <cstdint>

#include "cluster/placement.h"
#include "engine/event_queue.h"
#include "engine/time.h"
#include "workload/job_spec.h"

namespace schedlab::sim {

using RunId = std::uint64_t;

class Executor {
 public:
  virtual ~Executor() = default;
  // Starts tasks of `job` on `placement` at `now`, with `work` (trace microseconds at the
  // traced speed) to do after `delay` (a restore: GPUs held, no progress). The run's end
  // arrives as a completion event whose subject is `run`.
  virtual void start(RunId run, const workload::JobSpec& job, const cluster::Placement& placement, engine::Time now,
                     double work, engine::Time delay) = 0;
  // False for a completion event that a later change superseded (ignore it).
  virtual bool is_current(const engine::Event& completion) const = 0;
  // The run's completion was processed.
  virtual void finished(RunId run, engine::Time now) = 0;
  // Stops the run at `now` (preempted, or a task failed) and returns the work it did
  // since it started, speed changes included. The simulator computes it; the emulator
  // signals the processes (`graceful`: SIGTERM first, so they may save; else at once).
  virtual double stop(RunId run, engine::Time now, bool graceful) = 0;
  // The work the run has done by `now`, without stopping it.
  virtual double progress(RunId run, engine::Time now) const = 0;
  // Called once per instant after all starts and ends: apply speed changes.
  virtual void settle(engine::Time /*now*/) {}
};

}  // namespace schedlab::sim
