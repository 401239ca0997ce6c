// The scheduler's part of Peloton's resource pools: the book kept current (scheduler.cpp's
// submit, start, stop and end hooks), entitlements recomputed once per period, and under
// preemption `pool-reclaim` the surplus of a pool that stayed above its entitlement for
// `sustained_periods` periods stopped, lowest priority first, then the shortest run so far,
// each gang whole (a stop is a whole job). Pending jobs hold nothing here, so only running
// ones are reclaimed; pools marked non-preemptible never are.
#include <algorithm>

#include "pools/pool_book.h"
#include "sched/scheduler.h"
#include "util/checked.h"

namespace schedlab::sched {

void Scheduler::use_pools(pools::PoolBook* book, engine::Time period) {
  pools_ = book;
  pools_period_ = std::max<engine::Time>(period, 1);
}

void Scheduler::pools_pass(engine::Time now, cluster::AllocationState& alloc, std::vector<StopDecision>& stops) {
  const pools::Amounts capacity{static_cast<double>(topo_->total_gpus() - alloc.down_gpus()),
                                static_cast<double>(topo_->total_cpu_milli()) / 1000.0,
                                static_cast<double>(topo_->total_mem_mib()) / 1024.0};
  pools_->recompute(capacity);
  last_block_.valid = false;  // what a pool may start has changed
  next_pools_ = add_time(now, pools_period_);
  if (!preemption_->reclaims_pools()) return;
  const auto sustained = pools_->config().sustained_periods;
  for (std::size_t p = 0; p < pools_->size(); ++p)
    if (pools_->tree().is_leaf(p) && pools_->periods_over(static_cast<std::int32_t>(p)) >= sustained)
      reclaim(static_cast<std::int32_t>(p), now, alloc, stops);
}

void Scheduler::pools_timer() {
  // Only running jobs change the usage between events (and only they can be reclaimed): with
  // none, the next event (an arrival, a repair, a save ending) recomputes first. A timer
  // while jobs merely wait would keep a run whose waiting jobs can never start alive forever.
  if (running_.empty() || pools_timer_at_ == next_pools_) return;
  timers_.push_back({next_pools_, kPoolsTimer, 0});
  pools_timer_at_ = next_pools_;
}

void Scheduler::reclaim(std::int32_t pool, engine::Time now, cluster::AllocationState& alloc,
                        std::vector<StopDecision>& stops) {
  const auto& tree = pools_->tree();
  if (!tree[static_cast<std::size_t>(pool)].preemptible) return;
  struct Victim {
    workload::JobId id;
    std::int32_t priority;
    engine::Time run_start;
  };
  std::vector<Victim> victims;
  for (const auto& [id, run] : running_) {
    if (pools_->pool_of(id) != pool) continue;
    const auto& life = ledger_->life(id);
    if (life.state != JobState::running) continue;  // stopping already
    if (!run.spec->preemptible) continue;           // held within its reservation (admission pools)
    victims.push_back({id, run.spec->priority, life.run_start});
  }
  // Lowest priority first, then the shortest run so far (the latest start), then the id.
  std::sort(victims.begin(), victims.end(), [](const Victim& a, const Victim& b) {
    if (a.priority != b.priority) return a.priority < b.priority;
    if (a.run_start != b.run_start) return a.run_start > b.run_start;
    return a.id > b.id;
  });
  auto over = [&] {
    const auto& held = pools_->allocation(pool);
    const auto& entitled = pools_->entitlement(pool);
    for (std::size_t r = 0; r < pools::kResources; ++r)
      if (held[r] > entitled[r] * (1 + 1e-9) + 1e-9) return true;
    return false;
  };
  for (const auto& v : victims) {
    if (!over()) break;
    stop_running(v.id, StopCause::reclaimed, kNoJob, now, alloc, stops);
    ++reclaims_;
  }
}

}  // namespace schedlab::sched
