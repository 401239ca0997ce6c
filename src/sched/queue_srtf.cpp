// Queue order `srtf`: shortest remaining time first, by the work the job has left (the
// traced duration less the work done, the live run included), then submit time, then job id.
// Keys of running jobs drift as they work: the scheduler recomputes them before preemption.
#include <algorithm>

#include "sched/builtin_parts.h"
#include "sched/part_args.h"

namespace schedlab::sched {
namespace {
class SrtfQueue final : public QueueOrder {
 public:
  OrderKey key(const workload::JobSpec& job, const JobLedger& ledger, bool, engine::Time now) const override {
    // A ledger that does not know the job's work (a scheduler used alone) leaves the trace's.
    const double total =
        ledger.life(job.id).work_total > 0 ? ledger.life(job.id).work_total : static_cast<double>(job.duration);
    const double left = std::max(total - ledger.work_done(job.id, now), 0.0);
    return {left, static_cast<double>(job.submit)};
  }
  bool drifts_while_running() const override { return true; }
};
}  // namespace

std::unique_ptr<QueueOrder> make_srtf_queue(const PartArgs& args) {
  part_args(args, "srtf");
  return std::make_unique<SrtfQueue>();
}

}  // namespace schedlab::sched
