// "Never fits" (never_fits.h): the cluster's host shapes, and how many of a job's tasks the
// best allowed group of them could hold.
#include "sched/never_fits.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "cluster/resources.h"
#include "util/suggest.h"

namespace schedlab::sched {

namespace {
std::string model_list(cluster::ModelMask mask, const cluster::GpuCatalog& catalog) {
  std::vector<std::string> names;
  for (cluster::ModelId m = 0; m < catalog.size(); ++m)
    if (mask >> m & 1) names.push_back(catalog.model(m).name);
  return names.empty() ? std::string("none") : util::join(names, "|");
}

// Topology::class_in_mask, over a shape's class.
bool class_in_mask(std::size_t cls, cluster::ModelMask mask, const cluster::GpuCatalog& catalog) {
  return cls == catalog.size() ? (mask & cluster::kHostsWithoutGpus) != 0 : (mask >> cls & 1) != 0;
}
}  // namespace

std::vector<HostShape> host_shapes(const cluster::Topology& topo) {
  std::map<std::tuple<std::size_t, std::uint16_t, std::uint32_t, std::uint32_t>, std::uint64_t> shapes;
  for (cluster::HostId h = 0; h < topo.hosts().size(); ++h) {
    const auto& info = topo.host(h);
    ++shapes[{topo.class_of(h), info.gpus, info.cpu_milli, info.mem_mib}];
  }
  std::vector<HostShape> out;
  for (const auto& [k, n] : shapes)
    out.push_back(HostShape{std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k), n});
  return out;
}

std::optional<std::string> never_fits(const PendingJob& job, const std::vector<cluster::ModelMask>& groups,
                                      const std::vector<HostShape>& shapes, const cluster::GpuCatalog& catalog) {
  const auto& s = *job.spec;
  const cluster::TaskNeed need = job.need();
  if (!s.needs_gpu() && need.cpu_milli == 0) return std::string("unresolvable: needs no GPU and no CPU");
  if (groups.size() == 1 && groups[0] == 0) {
    if (!s.needs_gpu())
      return std::string(
          "unresolvable: needs no GPU, and no host may take it (no CPU-only host, and the filters keep it off hosts "
          "with GPUs)");
    return fmt::format("unresolvable: no GPU of the allowed model(s) in the cluster (requested {})",
                       model_list(job.requested, catalog));
  }
  const std::uint32_t g = s.fractional() ? 1 : s.gpus_per_task;  // GPUs a task needs on its host
  // Tasks one host of a shape could hold, alone.
  auto room = [&](const HostShape& h) {
    std::uint64_t n = g ? h.gpus / g : std::numeric_limits<std::uint64_t>::max();
    if (need.cpu_milli) n = std::min<std::uint64_t>(n, h.cpu_milli / need.cpu_milli);
    if (need.mem_mib) n = std::min<std::uint64_t>(n, h.mem_mib / need.mem_mib);
    return n;
  };
  std::uint64_t best_tasks = 0;
  std::uint16_t largest_host = 0;            // most GPUs on one allowed host
  std::uint32_t most_cpu = 0, most_mem = 0;  // most CPUs, memory on one allowed host with a task's GPUs
  bool one_fits = false;                     // some allowed host could hold one task
  for (auto mask : groups) {
    std::uint64_t tasks = 0;
    for (const auto& h : shapes) {
      if (!class_in_mask(h.cls, mask, catalog) || (g > 0 && h.gpus == 0)) continue;
      largest_host = std::max(largest_host, h.gpus);
      if (h.gpus < g) continue;
      most_cpu = std::max(most_cpu, h.cpu_milli);
      most_mem = std::max(most_mem, h.mem_mib);
      const std::uint64_t r = room(h);
      one_fits = one_fits || r > 0;
      tasks += h.count * std::min<std::uint64_t>(r, std::numeric_limits<std::uint32_t>::max());
    }
    // A share is one task: any host with room for it will do.
    if (tasks >= s.tasks || (s.fractional() && tasks > 0)) return std::nullopt;
    best_tasks = std::max(best_tasks, tasks);
  }
  if (largest_host < g)
    return fmt::format("unresolvable: a task needs {} GPUs on one host; the largest allowed host has {}",
                       s.gpus_per_task, largest_host);
  const char* with_gpus = g ? " with the GPUs" : "";
  if (!one_fits && most_cpu < need.cpu_milli)
    return fmt::format("unresolvable: a task needs {} CPUs on one host; the largest allowed host{} has {}",
                       cluster::cpu_text(need.cpu_milli), with_gpus, cluster::cpu_text(most_cpu));
  if (!one_fits)
    return fmt::format("unresolvable: a task needs {} GB of memory on one host; the largest allowed host{} has {} GB",
                       cluster::mem_gb_text(need.mem_mib), with_gpus, cluster::mem_gb_text(most_mem));
  if (g == 0)
    return fmt::format("unresolvable: needs {} tasks x {} CPUs; the cluster fits at most {}", s.tasks,
                       cluster::cpu_text(need.cpu_milli), best_tasks);
  return fmt::format("unresolvable: needs {} tasks x {} GPUs{}; the cluster fits at most {}", s.tasks, s.gpus_per_task,
                     groups.size() > 1 ? " of one generation" : "", best_tasks);
}

}  // namespace schedlab::sched
