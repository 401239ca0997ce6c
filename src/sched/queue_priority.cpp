// Queue order `priority`: the trace's priority, larger first (openb: LS/Guaranteed 2 >
// Burstable 1 > BE 0; a native CSV's `priority` column as given), then first come, first
// served.
#include "sched/builtin_parts.h"

namespace schedlab::sched {
namespace {
class PriorityQueue final : public QueueOrder {
 public:
  // Smaller keys go first, so the priority is negated; the key's primary part is the class
  // that `priority` preemption compares.
  bool fixed_keys() const override { return true; }
  OrderKey key(const workload::JobSpec& job, const JobLedger&, bool, engine::Time) const override {
    return {-static_cast<double>(job.priority), static_cast<double>(job.submit)};
  }
};
}  // namespace

std::unique_ptr<QueueOrder> make_priority_queue(const PartArgs&) { return std::make_unique<PriorityQueue>(); }

}  // namespace schedlab::sched
