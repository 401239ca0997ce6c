// The seam that turns a simulation into an emulation. A simulation jumps from event to event;
// an emulation waits for a wall clock (scaled by its speedup) and hears from the outside world
// meanwhile: tasks that ended or died, agents that vanished or came back, jobs submitted over
// its API. A Clock decides when the loop's next instant is and delivers what arrived from
// outside to the run (through OutsideEvents), in the loop's own thread, so the scheduler stays
// single-threaded and the loop is the same code in both modes (docs/architecture.md).
#pragma once

#include <optional>
#include <string>

#include "cluster/topology.h"
#include "engine/time.h"
#include "sim/executor.h"
#include "sim/run_view.h"
#include "workload/job_spec.h"

namespace schedlab::sim {

// What the outside world may tell a run. Each call queues an event at `now` (the instant the
// clock returned), so events from outside are ordered with the run's own like any others.
class OutsideEvents {
 public:
  virtual ~OutsideEvents() = default;
  // Every task of the run exited successfully: the run's work is done.
  virtual void run_ended(RunId run, engine::Time now) = 0;
  // A task of the run died or exited with an error: its job's attempt fails (never graceful).
  virtual void run_failed(RunId run, cluster::HostId host, engine::Time now) = 0;
  // A host stopped answering: its GPUs are down and the jobs on it fail, until host_back.
  virtual void host_lost(cluster::HostId host, engine::Time now) = 0;
  virtual void host_back(cluster::HostId host, engine::Time now) = 0;

  // The emulator's API. A job submitted now (its id is assigned here; its submit time is now).
  virtual workload::JobId submit(const SubmittedJob& job, engine::Time now) = 0;
  // Why such a job could never run on this cluster (the scheduler's never-fits check), asked
  // before submit(): the API refuses it rather than queue a job that is dropped on arrival.
  virtual std::optional<std::string> never_runs(const SubmittedJob& /*job*/) { return std::nullopt; }
  // A job stopped by a user, for good: it leaves the queue, or its runs are killed; it ends as
  // failed. False when no such job is active.
  virtual bool kill(workload::JobId id, engine::Time now) = 0;
  // Marathon's scale (and its start and stop: scale to a count from 0, or to 0): a service
  // wants `instances` from now on. New instances arrive now, with the shape of the service's
  // first; a scale down retires the newest. nullopt when no service has that name.
  virtual std::optional<ServiceScaled> scale_service(const std::string& name, std::uint32_t instances,
                                                     engine::Time now) = 0;
  // The run now; at most `limit` jobs, in id order (waiting ones in queue order when
  // `queue_only`).
  virtual void inspect(RunView& out, std::size_t limit, bool queue_only) const = 0;
};

class Clock {
 public:
  virtual ~Clock() = default;
  // Blocks until the loop's next instant: `next` (the earliest queued event; kTimeMax when
  // none) or earlier, when something arrives from outside, which it delivers to `outside` at
  // that instant. Returns the instant (never earlier than the one before); kTimeMax when
  // nothing is queued and nothing can arrive any more.
  virtual engine::Time advance(engine::Time next, OutsideEvents& outside) = 0;
};

}  // namespace schedlab::sim
