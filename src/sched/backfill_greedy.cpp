// Backfill `greedy`: any later job that fits may start past a blocked one, with no
// reservation for it (so a big job may wait for as long as small ones keep fitting).
#include "sched/builtin_parts.h"
#include "sched/part_args.h"

namespace schedlab::sched {
namespace {
class GreedyBackfill final : public Backfill {
 public:
  explicit GreedyBackfill(std::size_t max_scan) : max_scan_(max_scan) {}
  std::size_t max_scan() const override { return max_scan_; }
  bool may_start(const PendingJob&, std::uint64_t, const SchedContext&) const override { return true; }

 private:
  std::size_t max_scan_;
};
}  // namespace

std::unique_ptr<Backfill> make_greedy_backfill(const PartArgs& args) {
  // The scan past the first blocked job is bounded so that a long queue of jobs that do not
  // fit costs bounded time per pass; the default looks as far as easy does.
  return std::make_unique<GreedyBackfill>(part_args(args, "greedy", {"max_scan"}).count("max_scan", 1000, UINT32_MAX));
}

}  // namespace schedlab::sched
