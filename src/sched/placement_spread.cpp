// Placement `spread`: each task on the emptiest host that the job does not use yet (ties
// by lowest id); only when every host with room is used does a host take a second task.
// Emptiest: most free GPUs, or for a job without GPUs most free CPUs.
#include <algorithm>

#include "sched/builtin_parts.h"
#include "sched/placement_common.h"

namespace schedlab::sched {
namespace {
class Spread final : public PlacementPolicy {
 public:
  void place(const PendingJob& job, std::uint32_t want, cluster::ModelMask allowed, cluster::AllocationTransaction& tx,
             std::vector<cluster::TaskSlot>& out) const override {
    const auto& a = tx.state();
    const auto g = static_cast<std::uint16_t>(job.spec->fractional() ? 1 : job.spec->gpus_per_task);
    const cluster::TaskNeed need = job.need();
    std::vector<cluster::HostId> used;
    if (!job.spec->needs_gpu()) {
      // The host with the most free CPUs that the job does not use yet, else any.
      for (std::uint32_t placed = 0; placed < want; ++placed) {
        auto pick = a.cpu_host(allowed, need, cluster::HostPick::roomiest, &used);
        if (!pick) pick = a.cpu_host(allowed, need, cluster::HostPick::roomiest);
        if (!pick) return;
        out.push_back(tx.take(task_slot(job, *pick, 0)));
        used.push_back(*pick);
      }
      return;
    }
    for (std::uint32_t placed = 0; placed < want; ++placed) {
      std::optional<cluster::HostId> pick, fallback;
      std::uint16_t pick_free = 0, fallback_free = 0;
      for_each_model(allowed, a.topology().catalog().size(), [&](cluster::ModelId m) {
        for (std::size_t f = a.topology().max_host_gpus(m); f >= std::max<std::size_t>(g, 1); --f) {
          const auto& hosts = a.hosts_with_free(m, static_cast<std::uint16_t>(f));
          if (hosts.empty()) continue;
          for (auto h : hosts) {
            if (!a.fits(h, need)) continue;
            if (!fallback || f > fallback_free || (f == fallback_free && h < *fallback)) {
              fallback = h;
              fallback_free = static_cast<std::uint16_t>(f);
            }
            break;
          }
          for (auto h : hosts) {
            if (!a.fits(h, need) || std::find(used.begin(), used.end(), h) != used.end()) continue;
            if (!pick || f > pick_free || (f == pick_free && h < *pick)) {
              pick = h;
              pick_free = static_cast<std::uint16_t>(f);
            }
            break;
          }
          if (pick && pick_free == f) break;
        }
      });
      if (!pick) pick = fallback;
      if (!pick) return;
      out.push_back(tx.take(task_slot(job, *pick, g)));
      used.push_back(*pick);
    }
  }
};
}  // namespace

std::unique_ptr<PlacementPolicy> make_spread_placement(const PartArgs&) { return std::make_unique<Spread>(); }

}  // namespace schedlab::sched
