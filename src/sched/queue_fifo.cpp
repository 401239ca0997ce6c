// Queue order `fifo`: first come, first served.
#include "sched/builtin_parts.h"

namespace schedlab::sched {
namespace {
class FifoQueue final : public QueueOrder {
 public:
  bool fixed_keys() const override { return true; }
  OrderKey key(const workload::JobSpec& job, const JobLedger&, bool, engine::Time) const override {
    return {static_cast<double>(job.submit), 0};
  }
};
}  // namespace

std::unique_ptr<QueueOrder> make_fifo_queue(const PartArgs&) { return std::make_unique<FifoQueue>(); }

}  // namespace schedlab::sched
