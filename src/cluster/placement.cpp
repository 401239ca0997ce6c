// Summaries of a placement.
#include "cluster/placement.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

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

namespace {
// How many distinct values `key` takes over the tasks. Most placements have a few tasks:
// those are counted in a buffer on the stack (a heap vector per finished job was a cost at a
// million jobs); larger ones in a vector.
template <typename Key>
std::uint32_t distinct_count(const std::vector<TaskSlot>& tasks, Key key) {
  constexpr std::size_t kSmall = 64;
  using Value = decltype(key(tasks.front()));
  auto count = [&](Value* first) {
    Value* last = first;
    for (const auto& t : tasks) *last++ = key(t);
    std::sort(first, last);
    return static_cast<std::uint32_t>(std::unique(first, last) - first);
  };
  if (tasks.size() <= kSmall) {
    Value small[kSmall];
    return count(small);
  }
  std::vector<Value> large(tasks.size());
  return count(large.data());
}
}  // namespace

std::uint32_t Placement::distinct_hosts() const {
  return distinct_count(tasks, [](const TaskSlot& t) { return t.host; });
}

std::uint32_t Placement::distinct_racks(const Topology& topo) const {
  return distinct_count(tasks, [&](const TaskSlot& t) { return topo.host(t.host).rack; });
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
  append_description(out);
  return out;
}

void Placement::append_description(std::string& out) const {
  // "h<host>:<count>" from integers without a format call: one per finished job.
  auto entry = [&out](HostId host, std::uint64_t n) {
    char buf[48];
    char* end = buf;
    *end++ = 'h';
    end = std::to_chars(end, buf + 22, host).ptr;
    *end++ = ':';
    end = std::to_chars(end, buf + sizeof buf, n).ptr;
    out.append(buf, static_cast<std::size_t>(end - buf));
  };
  std::size_t i = 0;
  while (i < tasks.size()) {
    const auto& t = tasks[i];
    if (i > 0) out += '+';
    if (t.milli) {
      out += fmt::format("h{}:{:g}", t.host, t.milli / 1000.0);
      ++i;
      continue;
    }
    if (t.gpus == 0) {
      // A task without GPUs: one entry per task (there is no GPU count to merge).
      entry(t.host, 0);
      ++i;
      continue;
    }
    std::uint64_t g = 0;
    std::size_t j = i;
    while (j < tasks.size() && tasks[j].host == t.host && tasks[j].milli == 0 && tasks[j].gpus > 0) g += tasks[j++].gpus;
    entry(t.host, g);
    i = j;
  }
}

}  // namespace schedlab::cluster
