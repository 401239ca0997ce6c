// Placement `spread`: each task on the emptiest host that the job does not use yet (ties
// by lowest id); only when every host with room is used does a host take a second task.
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
    std::vector<cluster::HostId> used;
    for (std::uint32_t placed = 0; placed < want; ++placed) {
      std::optional<cluster::HostId> pick, fallback;
      std::uint16_t pick_free = 0, fallback_free = 0;
      for_each_model(allowed, a.topology().catalog().size(), [&](cluster::ModelId m) {
        for (std::size_t f = a.topology().max_host_gpus(m); f >= std::max<std::size_t>(g, 1); --f) {
          const auto& hosts = a.hosts_with_free(m, static_cast<std::uint16_t>(f));
          if (hosts.empty()) continue;
          if (!fallback || f > fallback_free || (f == fallback_free && *hosts.begin() < *fallback)) {
            fallback = *hosts.begin();
            fallback_free = static_cast<std::uint16_t>(f);
          }
          for (auto h : hosts) {
            if (std::find(used.begin(), used.end(), h) != used.end()) continue;
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
      if (job.spec->fractional())
        out.push_back(tx.take(cluster::TaskSlot{*pick, 0, job.spec->gpu_milli, 0}));
      else
        out.push_back(tx.take(cluster::TaskSlot{*pick, g, 0, 0}));
      used.push_back(*pick);
    }
  }
};
}  // namespace

std::unique_ptr<PlacementPolicy> make_spread_placement(const PartArgs&) { return std::make_unique<Spread>(); }

}  // namespace schedlab::sched
