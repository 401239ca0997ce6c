// Expected fragmentation, computed per host from its GPUs' room sorted largest first:
// F = S - sum over the kinds that fit of share(kind) x A(milli), where S is the host's free
// GPU capacity and A(milli) the capacity of the GPUs with at least `milli` room (the part a
// fitting task could use). Kinds are grouped so that a host costs one binary search per
// (gpus, milli) group, not one test per kind.
#include "sched/fragmentation.h"

#include <algorithm>
#include <functional>

namespace schedlab::sched {

void FragmentationMeasure::add(const TaskKind& kind, std::uint64_t tasks) {
  if (tasks == 0) return;
  kinds_[kind] += tasks;
  total_ += tasks;
  groups_.clear();
}

const std::vector<FragmentationMeasure::Group>& FragmentationMeasure::groups_for(cluster::ModelId model) const {
  auto it = groups_.find(model);
  if (it != groups_.end()) return it->second;
  // (gpus, milli) -> kinds by CPUs, with their task counts.
  std::map<std::pair<std::uint16_t, std::uint16_t>, std::map<std::uint32_t, std::uint64_t>> by_shape;
  for (const auto& [kind, n] : kinds_)
    if (kind.models >> model & 1) by_shape[{kind.gpus, kind.milli}][kind.cpu_milli] += n;
  std::vector<Group> groups;
  for (const auto& [shape, cpus] : by_shape) {
    Group g{shape.first, shape.second, {}, {}};
    std::uint64_t cumulative = 0;
    for (const auto& [cpu, n] : cpus) {
      cumulative += n;
      g.cpu.push_back(cpu);
      g.share.push_back(static_cast<double>(cumulative) / static_cast<double>(total_));
    }
    groups.push_back(std::move(g));
  }
  return groups_.emplace(model, std::move(groups)).first->second;
}

double FragmentationMeasure::of(cluster::ModelId model, std::span<const std::uint16_t> free_milli,
                                std::uint32_t cpu_free) const {
  double total = 0;
  for (auto f : free_milli) total += f;
  if (total == 0 || total_ == 0) return 0;
  double usable = 0;  // sum over fitting kinds of share x A(milli)
  for (const auto& g : groups_for(model)) {
    // Enough GPUs with room: the g.gpus-th largest room is at least g.milli.
    if (g.gpus == 0 || g.gpus > free_milli.size() || free_milli[g.gpus - 1] < g.milli) continue;
    auto fit = std::upper_bound(g.cpu.begin(), g.cpu.end(), cpu_free);
    if (fit == g.cpu.begin()) continue;
    double a = 0;
    for (auto f : free_milli) {
      if (f < g.milli) break;  // sorted largest first
      a += f;
    }
    usable += g.share[static_cast<std::size_t>(fit - g.cpu.begin()) - 1] * a;
  }
  return total - usable;
}

void FragmentationMeasure::free_milli_of(const cluster::AllocationState& state, cluster::HostId h,
                                         std::vector<std::uint16_t>& out) {
  out.assign(state.whole_free(h), 1000);
  for (auto used : state.shares(h))
    if (used > 0) out.push_back(static_cast<std::uint16_t>(1000 - used));
  std::sort(out.begin(), out.end(), std::greater<>());
}

double FragmentationMeasure::of_host(const cluster::AllocationState& state, cluster::HostId h) const {
  std::vector<std::uint16_t> room;
  free_milli_of(state, h, room);
  return of(state.topology().host(h).model, room, state.free_cpu_milli(h));
}

}  // namespace schedlab::sched
