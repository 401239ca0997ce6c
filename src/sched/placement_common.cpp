// Host searches shared by the placement policies.
#include "sched/placement_common.h"

namespace schedlab::sched {

using cluster::HostId;

std::optional<HostId> first_fit_host(const cluster::AllocationState& a, cluster::ModelMask mask, std::uint16_t k) {
  std::optional<HostId> best;
  for_each_model(mask, a.topology().catalog().size(), [&](cluster::ModelId m) {
    auto h = a.first_host_with(m, k);
    if (h && (!best || *h < *best)) best = h;
  });
  return best;
}

std::optional<HostId> tightest_host(const cluster::AllocationState& a, cluster::ModelMask mask, std::uint16_t k) {
  std::optional<HostId> best;
  for_each_model(mask, a.topology().catalog().size(), [&](cluster::ModelId m) {
    auto h = a.tightest_host_with(m, k);
    if (!h) return;
    if (!best || a.whole_free(*h) < a.whole_free(*best) || (a.whole_free(*h) == a.whole_free(*best) && *h < *best))
      best = h;
  });
  return best;
}

bool place_share(const PendingJob& job, cluster::ModelMask mask, bool tightest, cluster::AllocationTransaction& tx,
                 std::vector<cluster::TaskSlot>& out) {
  const auto& a = tx.state();
  const std::uint16_t milli = job.spec->gpu_milli;
  std::optional<HostId> host;
  int best_used = -1;
  for_each_model(mask, a.topology().catalog().size(), [&](cluster::ModelId m) {
    for (HostId h : a.hosts_with_shares(m)) {
      int slot = a.share_slot_with_room(h, milli, tightest);
      if (slot < 0) continue;
      int used = a.shares(h)[slot];
      if (!tightest) {
        if (!host || h < *host) host = h;
        break;  // ascending ids: the first with room is this model's lowest
      }
      if (used > best_used || (used == best_used && h < *host)) {
        best_used = used;
        host = h;
      }
    }
  });
  if (!tightest) {
    // First fit: the lowest host that has room, on a shared GPU or a free one.
    auto whole = first_fit_host(a, mask, 1);
    if (whole && (!host || *whole < *host)) host = whole;
  } else if (!host) {
    host = tightest_host(a, mask, 1);
  }
  if (!host) return false;
  out.push_back(tx.take(cluster::TaskSlot{*host, 0, milli, 0}));
  return true;
}

}  // namespace schedlab::sched
