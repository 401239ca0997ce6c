// Backfill `easy` (EASY, Lifka 1995): the first blocked job gets a reservation at the
// earliest time enough GPUs will be free (its "shadow time", from running jobs' expected
// ends); a later job may start now if it ends before the shadow time or uses only GPUs the
// reservation leaves spare. Counts GPUs of the blocked job's allowed models, not topology.
#include <fmt/format.h>

#include <algorithm>

#include "sched/builtin_parts.h"
#include "sched/part_args.h"

namespace schedlab::sched {
namespace {
class EasyBackfill final : public Backfill {
 public:
  explicit EasyBackfill(std::size_t max_scan) : max_scan_(max_scan) {}
  std::size_t max_scan() const override { return max_scan_; }

  void on_blocked(const PendingJob& blocked, const SchedContext& ctx, const RunningByEnd& running) override {
    std::uint64_t need = std::uint64_t{blocked.tasks_left} * blocked.spec->gpus_per_task;
    // GPUs of the models the blocked job may use: free now, and freed as running jobs end.
    std::uint64_t free = ctx.alloc.free_gpus(blocked.allowed);
    shadow_ = engine::kTimeMax;
    spare_ = 0;
    blocked_ = blocked.id();
    for (const auto& r : running) {
      free += r.gpus;
      if (free >= need) {
        shadow_ = r.expected_end;
        spare_ = free - need;
        break;
      }
    }
  }

  bool may_start(const PendingJob& candidate, std::uint64_t gpus, const SchedContext& ctx) const override {
    return ends_before_shadow(candidate, ctx) || gpus <= spare_;
  }

  void started(const PendingJob& candidate, std::uint64_t gpus, const SchedContext& ctx) override {
    if (!ends_before_shadow(candidate, ctx)) spare_ -= std::min(spare_, gpus);
  }

  Limit limit() const override { return {spare_, shadow_}; }

  std::string refusal(const PendingJob&, std::uint64_t gpus, const SchedContext&) const override {
    return fmt::format("would delay the reservation of job {} at t={:.0f} s: ends after it and needs {} GPUs, {} spare",
                       blocked_, static_cast<double>(shadow_) / 1e6, gpus, spare_);
  }

 private:
  bool ends_before_shadow(const PendingJob& candidate, const SchedContext& ctx) const {
    const auto& s = *candidate.spec;
    return ctx.now + (s.estimate > 0 ? s.estimate : s.duration) <= shadow_;
  }

  std::size_t max_scan_;
  engine::Time shadow_ = 0;
  std::uint64_t spare_ = 0;
  workload::JobId blocked_ = 0;
};
}  // namespace

std::unique_ptr<Backfill> make_easy_backfill(const PartArgs& args) {
  const auto scan = part_args(args, "easy", {"max_scan"}).count("max_scan", 1000, INT64_MAX);
  return std::make_unique<EasyBackfill>(static_cast<std::size_t>(scan));
}

}  // namespace schedlab::sched
