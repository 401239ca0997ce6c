// Placement `rack-pack`: fewest hosts, then fewest racks (Peloton: "place as many
// containers as possible on the same host or rack"). One host if the job fits on one
// (the tightest such host); else one rack (the rack with the least room that fits, filling
// its emptiest hosts first); else the fewest racks, roomiest racks first. Every host must also
// have the tasks' CPUs and memory. A job without GPUs: one host (the tightest in CPUs with
// room for all its tasks), else the tightest hosts, each filled.
#include <algorithm>
#include <limits>

#include "sched/builtin_parts.h"
#include "sched/placement_common.h"

namespace schedlab::sched {
namespace {
using cluster::HostId;
using cluster::RackId;

class RackPack final : public PlacementPolicy {
 public:
  void place(const PendingJob& job, std::uint32_t want, cluster::ModelMask allowed, cluster::AllocationTransaction& tx,
             std::vector<cluster::TaskSlot>& out) const override {
    const auto& a = tx.state();
    const auto& topo = a.topology();
    if (job.spec->fractional()) {
      for (std::uint32_t i = 0; i < want; ++i)
        if (!place_share(job, allowed, true, tx, out)) return;
      return;
    }
    const cluster::TaskNeed need = job.need();
    // The CPUs and memory of all `want` tasks, when one host could have them.
    std::optional<cluster::TaskNeed> all;
    if (std::uint64_t{want} * need.cpu_milli <= topo.max_host_cpu_milli() &&
        std::uint64_t{want} * need.mem_mib <= std::numeric_limits<std::uint32_t>::max())
      all = cluster::TaskNeed{want * need.cpu_milli, want * need.mem_mib};
    if (!job.spec->needs_gpu()) {
      // One host (the tightest with room for all), else the tightest hosts, filled.
      if (all) {
        if (auto h = a.cpu_host(allowed, *all, cluster::HostPick::tightest)) {
          for (std::uint32_t i = 0; i < want; ++i) out.push_back(tx.take(task_slot(job, *h, 0)));
          return;
        }
      }
      place_without_gpu(job, want, allowed, cluster::HostPick::tightest, true, tx, out);
      return;
    }
    const auto g = static_cast<std::uint16_t>(job.spec->gpus_per_task);
    const std::uint64_t total = std::uint64_t{want} * g;
    // 1. One host.
    if (total <= topo.max_host_gpus() && all) {
      if (auto h = tightest_host(a, allowed, static_cast<std::uint16_t>(total), *all)) {
        for (std::uint32_t i = 0; i < want; ++i) out.push_back(tx.take(task_slot(job, *h, g)));
        return;
      }
    }
    // 2. One rack: racks by their free GPUs ascending (an upper bound on room), the first
    //    whose hosts can really take every task.
    std::vector<std::pair<std::uint64_t, RackId>> racks;
    for (RackId r = 0; r < topo.racks().size(); ++r) {
      std::uint64_t free = 0;
      for_each_model(allowed, topo.catalog().size(), [&](cluster::ModelId m) { free += a.rack_free(m, r); });
      if (free >= g) racks.emplace_back(free, r);
    }
    std::sort(racks.begin(), racks.end());
    // Each rack's room, counted once: step 3 reuses what step 2 counted (nothing moves between).
    std::vector<std::pair<std::uint64_t, RackId>> by_room;
    by_room.reserve(racks.size());
    for (const auto& [free, r] : racks) {
      if (free < total) continue;
      const std::uint64_t room = task_room(a, r, allowed, job, g);
      if (room >= want) {
        fill_rack(a, r, allowed, job, g, want, tx, out);
        return;
      }
      by_room.emplace_back(room, r);
    }
    // 3. Fewest racks: roomiest racks first.
    for (const auto& [free, r] : racks)
      if (free < total) by_room.emplace_back(task_room(a, r, allowed, job, g), r);
    std::sort(by_room.begin(), by_room.end(), [](const auto& x, const auto& y) {
      return x.first != y.first ? x.first > y.first : x.second < y.second;
    });
    std::uint32_t placed = 0;
    for (const auto& [room, r] : by_room) {
      if (placed >= want || room == 0) break;
      std::uint32_t take = static_cast<std::uint32_t>(std::min<std::uint64_t>(room, want - placed));
      fill_rack(a, r, allowed, job, g, take, tx, out);
      placed += take;
    }
  }

 private:
  static bool host_allowed(const cluster::AllocationState& a, HostId h, cluster::ModelMask allowed) {
    return allowed >> a.topology().host(h).model & 1;
  }
  // Tasks of g GPUs (and the job's CPUs and memory) the rack's hosts can take now.
  static std::uint64_t task_room(const cluster::AllocationState& a, RackId r, cluster::ModelMask allowed,
                                 const PendingJob& job, std::uint16_t g) {
    const auto& rack = a.topology().rack(r);
    const cluster::TaskNeed need = job.need();
    std::uint64_t n = 0;
    // A host with fewer than g free GPUs has no room (g > 0): skipped before its model and
    // CPUs are read, which is most hosts of a loaded cluster.
    for (HostId h = rack.first_host; h < rack.first_host + rack.hosts; ++h)
      if (a.whole_free(h) >= g && host_allowed(a, h, allowed)) n += a.task_room(h, g, need);
    return n;
  }
  // Places `count` tasks in rack r, emptiest hosts first (fewest hosts), ties by id.
  static void fill_rack(const cluster::AllocationState& a, RackId r, cluster::ModelMask allowed, const PendingJob& job,
                        std::uint16_t g, std::uint32_t count, cluster::AllocationTransaction& tx,
                        std::vector<cluster::TaskSlot>& out) {
    const auto& rack = a.topology().rack(r);
    const cluster::TaskNeed need = job.need();
    std::vector<std::pair<std::uint16_t, HostId>> hosts;
    for (HostId h = rack.first_host; h < rack.first_host + rack.hosts; ++h)
      if (a.whole_free(h) >= g && host_allowed(a, h, allowed) && a.task_room(h, g, need) > 0)
        hosts.emplace_back(a.whole_free(h), h);
    std::sort(hosts.begin(), hosts.end(), [](const auto& x, const auto& y) {
      return x.first != y.first ? x.first > y.first : x.second < y.second;
    });
    for (const auto& [free, h] : hosts) {
      for (std::uint32_t n = a.task_room(h, g, need); n > 0 && count > 0; --n, --count)
        out.push_back(tx.take(task_slot(job, h, g)));
      if (count == 0) return;
    }
  }
};
}  // namespace

std::unique_ptr<PlacementPolicy> make_rack_pack_placement(const PartArgs&) { return std::make_unique<RackPack>(); }

}  // namespace schedlab::sched
