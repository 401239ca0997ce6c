// Queue order `sjf`: shortest job first, by the run time the trace states in advance (the
// user's estimate, else the traced duration: an oracle), then submit time, then job id.
#include "sched/builtin_parts.h"
#include "sched/part_args.h"

namespace schedlab::sched {
namespace {
class SjfQueue final : public QueueOrder {
 public:
  bool fixed_keys() const override { return true; }
  OrderKey key(const workload::JobSpec& job, const JobLedger&, bool, engine::Time) const override {
    const engine::Time length = job.estimate > 0 ? job.estimate : job.duration;
    return {static_cast<double>(length), static_cast<double>(job.submit)};
  }
};
}  // namespace

std::unique_ptr<QueueOrder> make_sjf_queue(const PartArgs& args) {
  part_args(args, "sjf");
  return std::make_unique<SjfQueue>();
}

}  // namespace schedlab::sched
