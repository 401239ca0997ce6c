// Preemption `pool-reclaim` (Peloton): no job evicts another for its key; instead, at every
// entitlement period, a leaf pool that has held more than its entitlement for the scenario's
// `sustained_periods` periods in a row gives the surplus back: its running jobs are stopped,
// lowest priority first, then the shortest run so far (the latest start), then the highest
// id, each gang whole (a stop is a whole job), until it holds no more than its entitlement.
// Pending jobs hold nothing, so only running ones are reclaimed; jobs held within their
// pool's reservation (not preemptible) and pools marked non-preemptible never are.
#include <algorithm>

#include "pools/pool_book.h"
#include "sched/builtin_parts.h"

namespace schedlab::sched {
namespace {
class PoolReclaim final : public Preemption {
 public:
  bool enabled() const override { return false; }
  void entitlement_period(const pools::PoolBook& book, const JobLedger& ledger,
                          const RunningJobs& running,
                          const std::function<void(workload::JobId)>& stop) const override {
    const auto sustained = book.config().sustained_periods;
    for (std::size_t p = 0; p < book.size(); ++p)
      if (book.tree().is_leaf(p) && book.periods_over(static_cast<std::int32_t>(p)) >= sustained)
        reclaim(static_cast<std::int32_t>(p), book, ledger, running, stop);
  }

 private:
  static void reclaim(std::int32_t pool, const pools::PoolBook& book, const JobLedger& ledger,
                      const RunningJobs& running, const std::function<void(workload::JobId)>& stop) {
    if (!book.tree()[static_cast<std::size_t>(pool)].preemptible) return;
    struct Victim {
      workload::JobId id;
      std::int32_t priority;
      engine::Time run_start;
    };
    std::vector<Victim> victims;
    for (const auto* spec : running()) {
      if (book.pool_of(spec->id) != pool) continue;
      const auto& life = ledger.life(spec->id);
      if (life.state != JobState::running) continue;  // stopping already
      if (!spec->preemptible) continue;               // held within its reservation (admission pools)
      victims.push_back({spec->id, spec->priority, life.run_start});
    }
    std::sort(victims.begin(), victims.end(), [](const Victim& a, const Victim& b) {
      if (a.priority != b.priority) return a.priority < b.priority;
      if (a.run_start != b.run_start) return a.run_start > b.run_start;
      return a.id > b.id;
    });
    auto over = [&] {
      const auto& held = book.allocation(pool);
      const auto& entitled = book.entitlement(pool);
      for (std::size_t r = 0; r < pools::kResources; ++r)
        if (held[r] > entitled[r] * (1 + 1e-9) + 1e-9) return true;
      return false;
    };
    for (const auto& v : victims) {
      if (!over()) break;
      stop(v.id);
    }
  }
};
}  // namespace

std::unique_ptr<Preemption> make_pool_reclaim_preemption(const PartArgs&) { return std::make_unique<PoolReclaim>(); }

}  // namespace schedlab::sched
