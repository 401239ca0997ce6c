// Preemption `none`: running jobs are never evicted.
#include "sched/builtin_parts.h"

namespace schedlab::sched {
namespace {
class NoPreemption final : public Preemption {
 public:
  bool enabled() const override { return false; }
};
}  // namespace

std::unique_ptr<Preemption> make_no_preemption(const PartArgs&) { return std::make_unique<NoPreemption>(); }

}  // namespace schedlab::sched
