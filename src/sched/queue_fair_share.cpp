// Queue order `fair-share`: jobs of the user who holds the fewest GPUs now go first, then
// submit time, then job id. A start or stop changes every key of that user's jobs, which
// keyed_by_user() asks the scheduler to recompute; the share is of GPUs only (hosts have no
// CPUs yet, so dominant resource fairness reduces to this).
#include "sched/builtin_parts.h"
#include "sched/part_args.h"

namespace schedlab::sched {
namespace {
class FairShareQueue final : public QueueOrder {
 public:
  OrderKey key(const workload::JobSpec& job, const JobLedger& ledger, bool, engine::Time) const override {
    return {static_cast<double>(ledger.user_held_milli(job.user)), static_cast<double>(job.submit)};
  }
  bool keyed_by_user() const override { return true; }
};
}  // namespace

std::unique_ptr<QueueOrder> make_fair_share_queue(const PartArgs& args) {
  part_args(args, "fair-share");
  return std::make_unique<FairShareQueue>();
}

}  // namespace schedlab::sched
