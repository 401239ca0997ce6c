// Host searches shared by the placement policies.
#include "sched/placement_common.h"

namespace schedlab::sched {

using cluster::HostId;

std::optional<HostId> first_fit_host(const cluster::AllocationState& a, cluster::ModelMask mask, std::uint16_t k,
                                     const cluster::TaskNeed& need) {
  std::optional<HostId> best;
  for_each_model(mask, a.topology().catalog().size(), [&](cluster::ModelId m) {
    auto h = a.first_host_with(m, k, need);
    if (h && (!best || *h < *best)) best = h;
  });
  return best;
}

std::optional<HostId> tightest_host(const cluster::AllocationState& a, cluster::ModelMask mask, std::uint16_t k,
                                    const cluster::TaskNeed& need) {
  std::optional<HostId> best;
  for_each_model(mask, a.topology().catalog().size(), [&](cluster::ModelId m) {
    auto h = a.tightest_host_with(m, k, need);
    if (!h) return;
    if (!best || a.whole_free(*h) < a.whole_free(*best) || (a.whole_free(*h) == a.whole_free(*best) && *h < *best))
      best = h;
  });
  return best;
}

cluster::TaskSlot task_slot(const PendingJob& job, HostId h, std::uint16_t g) {
  const auto& s = *job.spec;
  return cluster::TaskSlot{h, s.fractional() ? std::uint16_t{0} : g,
                           s.fractional() ? s.gpu_milli : std::uint16_t{0}, 0, s.cpu_milli, s.mem_mib};
}

bool place_share(const PendingJob& job, cluster::ModelMask mask, bool tightest, cluster::AllocationTransaction& tx,
                 std::vector<cluster::TaskSlot>& out) {
  const auto& a = tx.state();
  const std::uint16_t milli = job.spec->gpu_milli;
  const cluster::TaskNeed need = job.need();
  std::optional<HostId> host;
  int best_used = -1;
  for_each_model(mask, a.topology().catalog().size(), [&](cluster::ModelId m) {
    for (HostId h : a.hosts_with_shares(m)) {
      if (!a.fits(h, need)) continue;
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
    auto whole = first_fit_host(a, mask, 1, need);
    if (whole && (!host || *whole < *host)) host = whole;
  } else if (!host) {
    host = tightest_host(a, mask, 1, need);
  }
  if (!host) return false;
  out.push_back(tx.take(task_slot(job, *host, 0)));
  return true;
}

void place_without_gpu(const PendingJob& job, std::uint32_t want, cluster::ModelMask mask, cluster::HostPick pick,
                       bool fill, cluster::AllocationTransaction& tx, std::vector<cluster::TaskSlot>& out) {
  const auto& a = tx.state();
  const cluster::TaskNeed need = job.need();
  std::uint32_t placed = 0;
  while (placed < want) {
    auto h = a.cpu_host(mask, need, pick);
    if (!h) return;
    for (std::uint32_t n = fill ? a.task_room(*h, 0, need) : 1; n > 0 && placed < want; --n, ++placed)
      out.push_back(tx.take(task_slot(job, *h, 0)));
  }
}

}  // namespace schedlab::sched
