// Queue order `fifo`: first come, first served.
#include "sched/builtin_parts.h"

namespace schedlab::sched {
namespace {
class FifoQueue final : public QueueOrder {
 public:
  double key(const PendingJob& job, engine::Time) const override { return static_cast<double>(job.spec->submit); }
};
}  // namespace

std::unique_ptr<QueueOrder> make_fifo_queue(const PartArgs&) { return std::make_unique<FifoQueue>(); }

}  // namespace schedlab::sched
