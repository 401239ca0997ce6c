// Summaries of a placement.
#include "cluster/placement.h"

#include <fmt/format.h>

#include <algorithm>

namespace schedlab::cluster {

std::uint64_t gpus_of(const std::vector<TaskSlot>& tasks) {
  std::uint64_t n = 0;
  for (const auto& t : tasks) n += t.milli ? 1 : t.gpus;
  return n;
}

std::uint64_t Placement::gpus() const { return gpus_of(tasks); }

std::uint64_t Placement::used_milli() const {
  std::uint64_t n = 0;
  for (const auto& t : tasks) n += t.milli ? t.milli : std::uint64_t{t.gpus} * 1000;
  return n;
}

std::uint64_t Placement::cpu_milli() const {
  std::uint64_t n = 0;
  for (const auto& t : tasks) n += t.cpu_milli;
  return n;
}

std::uint32_t Placement::distinct_hosts() const {
  std::vector<HostId> hs;
  for (const auto& t : tasks) hs.push_back(t.host);
  std::sort(hs.begin(), hs.end());
  return static_cast<std::uint32_t>(std::unique(hs.begin(), hs.end()) - hs.begin());
}

std::uint32_t Placement::distinct_racks(const Topology& topo) const {
  std::vector<RackId> rs;
  for (const auto& t : tasks) rs.push_back(topo.host(t.host).rack);
  std::sort(rs.begin(), rs.end());
  return static_cast<std::uint32_t>(std::unique(rs.begin(), rs.end()) - rs.begin());
}

ModelMask Placement::models(const Topology& topo) const {
  ModelMask m = 0;
  for (const auto& t : tasks)
    if (t.gpus || t.milli) m |= ModelMask{1} << topo.host(t.host).model;  // tasks without GPUs name no model
  return m;
}

Tier Placement::span(const Topology& topo) const {
  Tier widest = Tier::same_host;
  for (const auto& t : tasks) widest = std::max(widest, topo.host_tier(tasks.front().host, t.host));
  return widest;
}

std::string Placement::describe() const {
  std::string out;
  std::size_t i = 0;
  while (i < tasks.size()) {
    const auto& t = tasks[i];
    if (!out.empty()) out += '+';
    if (t.milli) {
      out += fmt::format("h{}:{:g}", t.host, t.milli / 1000.0);
      ++i;
      continue;
    }
    if (t.gpus == 0) {
      // A task without GPUs: one entry per task (there is no GPU count to merge).
      out += fmt::format("h{}:0", t.host);
      ++i;
      continue;
    }
    std::uint64_t g = 0;
    std::size_t j = i;
    while (j < tasks.size() && tasks[j].host == t.host && tasks[j].milli == 0 && tasks[j].gpus > 0) g += tasks[j++].gpus;
    out += fmt::format("h{}:{}", t.host, g);
    i = j;
  }
  return out;
}

}  // namespace schedlab::cluster
