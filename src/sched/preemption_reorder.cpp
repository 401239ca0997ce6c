// Preemption `reorder` (Tiresias, Gu et al., NSDI'19): running and waiting jobs share one
// queue order; a waiting job whose key is better than a running job's evicts the worst-keyed
// running jobs it needs, so that the best jobs in the order are the ones that run.
// `pass: redecide` decides the running set in one walk by GPU count instead (the Tiresias
// simulator's, builtin_redecide.cpp); `pass: evict` (default) keeps the start pass and the
// preemption pass with its reprieve (docs/policies.md, D1, D4, D5).
#include "sched/builtin_parts.h"
#include "sched/part_args.h"

namespace schedlab::sched {
namespace {
class ReorderPreemption final : public Preemption {
 public:
  ReorderPreemption(engine::Time min_run, bool redecide) : min_run_(min_run), redecide_(redecide) {}
  bool enabled() const override { return true; }
  engine::Time min_run() const override { return min_run_; }
  bool redecides() const override { return redecide_; }
  // The whole key: under las the queue index then the tie-break, under fifo the submit time.
  // (The defaults of outranks and evict_first: the strict order, worst key, then highest id, first.)

 private:
  engine::Time min_run_;
  bool redecide_;
};
}  // namespace

std::unique_ptr<Preemption> make_reorder_preemption(const PartArgs& args) {
  const util::ArgReader a = part_args(args, "reorder", {"min_run_s", "pass"});
  return std::make_unique<ReorderPreemption>(a.seconds("min_run_s", 0),
                                             a.choice("pass", "evict", {"evict", "redecide"}) == "redecide");
}

}  // namespace schedlab::sched
