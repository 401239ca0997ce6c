// The pool book kept from job events, and the entitlement period (pools_listener.h).
#include "sched/pools_listener.h"

#include <algorithm>

#include "pools/pool_book.h"
#include "util/checked.h"

namespace schedlab::sched {

PoolsListener::PoolsListener(pools::PoolBook& book, engine::Time period)
    : book_(&book), period_(std::max<engine::Time>(period, 1)) {}

void PoolsListener::recompute(const cluster::Topology& topo, const cluster::AllocationState& alloc, engine::Time now) {
  const pools::Amounts capacity{static_cast<double>(topo.total_gpus() - alloc.down_gpus()),
                                static_cast<double>(topo.total_cpu_milli()) / 1000.0,
                                static_cast<double>(topo.total_mem_mib()) / 1024.0};
  book_->recompute(capacity);
  next_period_ = util::add_time(now, period_);
}

void PoolsListener::ask_timer(bool jobs_running, std::vector<TimerRequest>& timers) {
  if (!jobs_running || timer_at_ == next_period_) return;
  timers.push_back({next_period_, kPoolsTimer, 0});
  timer_at_ = next_period_;
}

void PoolsListener::job_submitted(const PendingJob& job) { book_->waiting(*job.spec, job.spec->tasks); }
void PoolsListener::job_refused(workload::JobId id) { book_->gone(id); }
void PoolsListener::tasks_started(const PendingJob& job, std::uint32_t tasks) { book_->started(*job.spec, tasks); }
void PoolsListener::job_left_running(workload::JobId id) { book_->released(id); }
void PoolsListener::job_requeued(const PendingJob& job) { book_->waiting(*job.spec, job.spec->tasks); }
void PoolsListener::job_ended(workload::JobId id, bool /*was_running*/) { book_->gone(id); }
void PoolsListener::job_forgotten(workload::JobId id) { book_->gone(id); }

}  // namespace schedlab::sched
