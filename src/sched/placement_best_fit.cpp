// Placement `best-fit`: each task on the host that it leaves with the fewest idle GPUs, so
// that GPUs are packed tightly and whole hosts stay free for large jobs (a task without GPUs:
// the host left with the fewest free CPUs).
#include "sched/builtin_parts.h"
#include "sched/placement_common.h"

namespace schedlab::sched {
namespace {
class BestFit final : public PlacementPolicy {
 public:
  void place(const PendingJob& job, std::uint32_t want, cluster::ModelMask allowed, cluster::AllocationTransaction& tx,
             std::vector<cluster::TaskSlot>& out) const override {
    if (!job.spec->needs_gpu()) {
      // The host left with the fewest free CPUs.
      place_without_gpu(job, want, allowed, cluster::HostPick::tightest, false, tx, out);
      return;
    }
    const auto g = static_cast<std::uint16_t>(job.spec->gpus_per_task);
    const cluster::TaskNeed need = job.need();
    for (std::uint32_t placed = 0; placed < want; ++placed) {
      if (job.spec->fractional()) {
        if (!place_share(job, allowed, true, tx, out)) return;
        continue;
      }
      auto h = tightest_host(tx.state(), allowed, g, need);
      if (!h) return;
      out.push_back(tx.take(task_slot(job, *h, g)));
    }
  }
};
}  // namespace

std::unique_ptr<PlacementPolicy> make_best_fit_placement(const PartArgs&) { return std::make_unique<BestFit>(); }

}  // namespace schedlab::sched
