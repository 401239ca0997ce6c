// Preemption `priority` (Kubernetes default preemption): a waiting job evicts running jobs
// of a strictly lower class (the key's primary part: the trace priority under the
// `priority` queue), lowest class first and, within a class, the youngest runs first; the
// scheduler's dry run then reprieves every victim the job can do without.
#include "sched/builtin_parts.h"
#include "sched/part_args.h"

namespace schedlab::sched {
namespace {
class PriorityPreemption final : public Preemption {
 public:
  explicit PriorityPreemption(engine::Time min_run) : min_run_(min_run) {}
  bool enabled() const override { return true; }
  engine::Time min_run() const override { return min_run_; }
  // Only a better class evicts: within one class (equal priority) the tie-break (submit
  // time) never does, as Kubernetes evicts only pods of lower priority.
  bool outranks(const OrderKey& waiting, const OrderKey& running) const override {
    return waiting.primary < running.primary;
  }
  // Kubernetes' victim order within a priority: the most recently started pod goes first
  // (it has lost the least work); then the worse key, then the higher id.
  bool evict_first(const EvictionCandidate& a, const EvictionCandidate& b) const override {
    if (a.run_start != b.run_start) return a.run_start > b.run_start;
    return a.key != b.key ? a.key > b.key : a.id > b.id;
  }

 private:
  engine::Time min_run_;
};
}  // namespace

std::unique_ptr<Preemption> make_priority_preemption(const PartArgs& args) {
  return std::make_unique<PriorityPreemption>(part_args(args, "priority", {"min_run_s"}).seconds("min_run_s", 0));
}

}  // namespace schedlab::sched
