// Preemption `pool-reclaim` (Peloton): no job evicts another for its key; instead, at every
// entitlement period, a pool that has held more than its entitlement for `sustained_periods`
// periods in a row gives the surplus back (Scheduler::reclaim_pass).
#include "sched/builtin_parts.h"

namespace schedlab::sched {
namespace {
class PoolReclaim final : public Preemption {
 public:
  bool enabled() const override { return false; }
  bool reclaims_pools() const override { return true; }
};
}  // namespace

std::unique_ptr<Preemption> make_pool_reclaim_preemption(const PartArgs&) { return std::make_unique<PoolReclaim>(); }

}  // namespace schedlab::sched
