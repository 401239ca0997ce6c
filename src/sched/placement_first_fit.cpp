// Placement `first-fit`: tasks go to the lowest-numbered hosts with room, as many per host
// as fit.
#include "sched/builtin_parts.h"
#include "sched/placement_common.h"

namespace schedlab::sched {
namespace {
class FirstFit final : public PlacementPolicy {
 public:
  void place(const PendingJob& job, std::uint32_t want, cluster::ModelMask allowed, cluster::AllocationTransaction& tx,
             std::vector<cluster::TaskSlot>& out) const override {
    if (!job.spec->needs_gpu()) {
      place_without_gpu(job, want, allowed, cluster::HostPick::lowest, true, tx, out);
      return;
    }
    const auto g = static_cast<std::uint16_t>(job.spec->gpus_per_task);
    const cluster::TaskNeed need = job.need();
    std::uint32_t placed = 0;
    while (placed < want) {
      if (job.spec->fractional()) {
        if (!place_share(job, allowed, false, tx, out)) return;
        ++placed;
        continue;
      }
      auto h = first_fit_host(tx.state(), allowed, g, need);
      if (!h) return;
      for (std::uint32_t n = tx.state().task_room(*h, g, need); n > 0 && placed < want; --n, ++placed)
        out.push_back(tx.take(task_slot(job, *h, g)));
    }
  }
};
}  // namespace

std::unique_ptr<PlacementPolicy> make_first_fit_placement(const PartArgs&) { return std::make_unique<FirstFit>(); }

}  // namespace schedlab::sched
