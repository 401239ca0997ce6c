// What a run reports as it goes. The simulation calls these; metrics, timelines and logs
// subscribe. Observers never influence scheduling.
#pragma once

#include <cstdint>
#include <string>

#include "cluster/placement.h"
#include "engine/time.h"
#include "sched/job_life.h"
#include "sched/decisions.h"
#include "workload/job_spec.h"

namespace schedlab::pools {
class PoolBook;
}

namespace schedlab::metrics {

// The cluster after the scheduler ran at one instant; holds until the next instant.
struct InstantState {
  engine::Time now = 0;
  std::uint64_t used_milli = 0;       // GPU-thousandths held by running tasks
  std::uint64_t free_gpus = 0;        // wholly free GPUs
  std::uint64_t running_jobs = 0;
  std::uint64_t pending_jobs = 0;
  std::uint64_t fragmented_gpus = 0;  // free GPUs the first pending job cannot use
  std::uint64_t down_gpus = 0;        // GPUs out of service (failed, not yet repaired)
  std::uint64_t used_cpu_milli = 0;   // CPU-thousandths held by running tasks
  // The scenario's pools as they stand (allocation, entitlement, pending per pool); null
  // without pools. The book lives as long as the run, but its figures change after this
  // call: an observer copies what it needs now.
  const pools::PoolBook* pools = nullptr;
};

// A step of a job's life, for event logs and per-job figures.
enum class LifeStep : std::uint8_t {
  start,     // first start of the job
  restart,   // a start after a stop (it pays its restore time)
  stop,      // all its tasks stopped (preempted, or a task's host or GPU failed)
  finish,    // its work is done
  fail,      // a failure left it no retries: terminated
};
const char* step_name(LifeStep s);

struct LifeEvent {
  LifeStep step = LifeStep::start;
  engine::Time now = 0;
  const workload::JobSpec* job = nullptr;
  const sched::JobLife* life = nullptr;
  sched::StopCause cause = sched::StopCause::preempted;  // for stop and fail
  workload::JobId by = sched::kNoJob;                   // for a preemption: the job it made room for
  std::uint32_t host = 0;                               // for a failure: the host that failed
  double lost_work_s = 0;                               // for stop and fail: work thrown away (trace seconds)
  engine::Time hold = 0;                                // for a graceful stop: GPUs kept to save
  const cluster::Placement* placement = nullptr;        // for start and restart: where
};

// A step of a service's or cron entry's life that the events above do not tell apart; the
// services and cron figures (metrics/long_running_observer.h) need them.
enum class LongRunningStep : std::uint8_t {
  cron_occurrence,           // a cron occurrence arrived (before its on_submit or on_drop)
  cron_skipped,              // the occurrence is skipped (overlap, or a parent that did not
                             // finish): the on_drop that follows at once is this skip, not a refusal
  running_instance_retired,  // a running service instance is no longer wanted: it goes down
                             // without a stop (its on_life finish follows)
};

struct LongRunningEvent {
  LongRunningStep step = LongRunningStep::cron_occurrence;
  engine::Time now = 0;
  const workload::JobSpec* job = nullptr;
  bool overlapping = false;  // for cron_occurrence: the entry's previous occurrence is still there
};

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void on_submit(const workload::JobSpec& /*job*/, engine::Time /*now*/) {}
  virtual void on_drop(const workload::JobSpec& /*job*/, engine::Time /*now*/, const std::string& /*reason*/) {}
  // Some of the job's tasks start; `first` for the job's first start.
  virtual void on_start(const workload::JobSpec& /*job*/, const cluster::Placement& /*tasks*/, engine::Time /*now*/,
                        bool /*first*/) {}
  // Tasks started together end together (a "run"), or are stopped together and free
  // their GPUs at `now`; `job_done` when it was the job's last (its work is done).
  virtual void on_run_end(const workload::JobSpec& /*job*/, const cluster::Placement& /*tasks*/,
                          engine::Time /*start*/, engine::Time /*now*/, bool /*job_done*/) {}
  virtual void on_life(const LifeEvent& /*event*/) {}
  virtual void on_long_running(const LongRunningEvent& /*event*/) {}
  virtual void on_instant(const InstantState& /*state*/) {}
  virtual void on_finish(engine::Time /*now*/) {}
};

}  // namespace schedlab::metrics
