// The scheduler's part of Peloton's resource pools: the pool book kept current from the
// scheduler's job events (waiting, started, released, gone), and the entitlement period:
// when it is due, the recompute from the capacity that is up, and the timer that wakes the
// loop at the next one while jobs run.
#pragma once

#include <vector>

#include "cluster/allocation.h"
#include "cluster/topology.h"
#include "sched/job_listener.h"

namespace schedlab::pools {
class PoolBook;
}

namespace schedlab::sched {

class PoolsListener final : public JobListener {
 public:
  PoolsListener(pools::PoolBook& book, engine::Time period);

  const pools::PoolBook& book() const { return *book_; }
  bool period_due(engine::Time now) const { return now >= next_period_; }
  // Entitlements recomputed from what is up now; the next period is counted from `now`.
  void recompute(const cluster::Topology& topo, const cluster::AllocationState& alloc, engine::Time now);
  // After a pass: the loop is woken at the next period while jobs run. Only running jobs
  // change the usage between events (and only they can be reclaimed): with none, the next
  // event (an arrival, a repair, a save ending) recomputes first. A timer while jobs merely
  // wait would keep a run whose waiting jobs can never start alive forever.
  void ask_timer(bool jobs_running, std::vector<TimerRequest>& timers);

  void job_submitted(const PendingJob& job) override;
  void job_refused(workload::JobId id) override;
  void tasks_started(const PendingJob& job, std::uint32_t tasks) override;
  void job_left_running(workload::JobId id) override;
  void job_requeued(const PendingJob& job) override;
  void job_ended(workload::JobId id, bool was_running) override;
  void job_forgotten(workload::JobId id) override;

 private:
  pools::PoolBook* book_;
  engine::Time period_;
  engine::Time next_period_ = std::numeric_limits<engine::Time>::min();
  engine::Time timer_at_ = std::numeric_limits<engine::Time>::min();
};

}  // namespace schedlab::sched
