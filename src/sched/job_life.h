// What the simulation knows of a job's life that policies read but never write: its state,
// attained service, work done and remaining, stops and retries. The simulation owns these
// facts (one owner per fact); queue orders and preemption see them through a JobLedger.
#pragma once

#include <cstdint>
#include <vector>

#include "cluster/placement.h"
#include "engine/time.h"
#include "workload/job_spec.h"

namespace schedlab::sched {

enum class JobState : std::uint8_t {
  pending,   // waiting to (re)start
  running,   // some tasks hold GPUs and make progress
  stopping,  // saving a checkpoint before its GPUs are freed (graceful preemption)
  finished,
  failed,    // retries exhausted: terminated
  dropped,   // never fits: refused at submit
};

const char* state_name(JobState s);

struct JobLife {
  JobState state = JobState::pending;
  engine::Time pending_since = 0;  // when it last entered the queue
  engine::Time run_start = -1;     // first start of the current run; -1 when not running
  engine::Time attained = 0;       // wall time holding GPUs, over ended runs
  double attained_gpu_us = 0;      // GPU-microseconds held, over ended runs
  std::uint64_t held_milli = 0;    // GPU-thousandths held now
  double work_done = 0;            // work safely done (trace microseconds), as of the last stop
  double work_total = 0;           // the job's work (trace microseconds at the traced speed)
  std::uint32_t preemptions = 0;
  std::uint32_t failures = 0;
  std::uint32_t restarts = 0;
  double lost_gpu_us = 0;          // work thrown away plus save and restore time, GPU-microseconds
  std::uint32_t resizes = 0;       // restarts at another size (elastic jobs)
  double resize_lost_us = 0;       // wall time those restarts cost (part of lost_gpu_us, per GPU)
};

// Read-only view of every job's life. Implemented by the simulation (and by tests).
class JobLedger {
 public:
  virtual ~JobLedger() = default;
  virtual const JobLife& life(workload::JobId id) const = 0;
  // Work done (trace microseconds) at `now`, the current run's progress included.
  virtual double work_done(workload::JobId id, engine::Time now) const = 0;
  // GPU-thousandths held now by all jobs of `user`.
  virtual std::uint64_t user_held_milli(workload::Label user) const = 0;
  // Jobs submitted and not yet ended (pending, running or stopping).
  virtual std::uint64_t active_jobs() const = 0;
  // Distinct users with an active job.
  virtual std::uint64_t active_users() const = 0;
  // The slots the job holds now (all its running tasks).
  virtual void held_slots(workload::JobId id, std::vector<cluster::TaskSlot>& out) const = 0;
  // How long a preempted job keeps its GPUs to save a checkpoint (0 = freed at once).
  virtual engine::Time stop_hold(workload::JobId /*id*/) const { return 0; }
  // Preemption's thrash guard: the earliest instant (>= now) at which stopping the running job
  // keeps work beyond the checkpoint its run resumed from: after its restore, and past its
  // next periodic checkpoint unless a graceful stop saves everything. Evicting it sooner
  // would throw away all the run did, and two jobs evicting each other would never finish.
  // An estimate at the run's current speed: the pass asks again when it comes.
  virtual engine::Time keeps_work_from(workload::JobId /*id*/, engine::Time now) const { return now; }

  // Attained service at `now`: wall time, and GPU-seconds, the current run included.
  engine::Time attained(workload::JobId id, engine::Time now) const {
    const auto& l = life(id);
    return l.attained + (l.run_start >= 0 && now > l.run_start ? now - l.run_start : 0);
  }
  double attained_gpu_s(workload::JobId id, engine::Time now) const {
    const auto& l = life(id);
    double live = l.run_start >= 0 && now > l.run_start
                      ? static_cast<double>(l.held_milli) / 1000.0 * static_cast<double>(now - l.run_start)
                      : 0.0;
    return (l.attained_gpu_us + live) / 1e6;
  }
};

// A ledger for jobs that never stop (a scheduler used alone, in tests and benchmarks):
// nothing attained, all work remaining.
class FreshLedger final : public JobLedger {
 public:
  const JobLife& life(workload::JobId) const override { return life_; }
  double work_done(workload::JobId, engine::Time) const override { return 0; }
  std::uint64_t user_held_milli(workload::Label) const override { return 0; }
  std::uint64_t active_jobs() const override { return 0; }
  std::uint64_t active_users() const override { return 0; }
  void held_slots(workload::JobId, std::vector<cluster::TaskSlot>& out) const override { out.clear(); }

 private:
  JobLife life_;
};

}  // namespace schedlab::sched
