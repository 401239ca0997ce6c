// Preemption `reorder` (Tiresias, Gu et al., NSDI'19): running and waiting jobs share one
// queue order; a waiting job whose key is better than a running job's evicts the worst-keyed
// running jobs it needs, so that the best jobs in the order are the ones that run.
#include "sched/builtin_parts.h"
#include "sched/part_args.h"

namespace schedlab::sched {
namespace {
class ReorderPreemption final : public Preemption {
 public:
  explicit ReorderPreemption(engine::Time min_run) : min_run_(min_run) {}
  bool enabled() const override { return true; }
  engine::Time min_run() const override { return min_run_; }
  // The whole key: under las the queue index then the tie-break, under fifo the submit time.
  // (The defaults of outranks and evict_first: the strict order, worst key, then highest id, first.)

 private:
  engine::Time min_run_;
};
}  // namespace

std::unique_ptr<Preemption> make_reorder_preemption(const PartArgs& args) {
  return std::make_unique<ReorderPreemption>(part_args(args, "reorder", {"min_run_s"}).seconds("min_run_s", 0));
}

}  // namespace schedlab::sched
