// Building the topology graph and answering locality questions on it.
#include "cluster/topology.h"

#include <boost/graph/breadth_first_search.hpp>
#include <algorithm>
#include <cassert>

namespace schedlab::cluster {

const char* tier_name(Tier t) {
  switch (t) {
    case Tier::same_gpu: return "same-gpu";
    case Tier::same_host: return "same-host";
    case Tier::same_rack: return "same-rack";
    case Tier::cross_rack: return "cross-rack";
  }
  return "?";
}

Topology::Topology(const ClusterSpec& spec, const GpuCatalog& catalog)
    : name_(spec.name), catalog_(&catalog), spine_gbps_(spec.spine_gbps) {
  gpus_by_model_.assign(catalog.size(), 0);
  max_host_gpus_.assign(catalog.size(), 0);
  max_cpu_.assign(catalog.size() + 1, 0);
  min_cpu_per_gpu_.assign(catalog.size(), ~std::uint32_t{0});
  min_mem_per_gpu_.assign(catalog.size(), ~std::uint32_t{0});
  VertexId spine = boost::add_vertex(Vertex{Vertex::spine, 0}, graph_);
  for (const auto& rs : spec.racks) {
    for (std::uint32_t copy = 0; copy < rs.count; ++copy) {
      RackId r = static_cast<RackId>(racks_.size());
      RackInfo rack;
      rack.name = rs.count > 1 ? rs.name + "-" + std::to_string(copy) : rs.name;
      rack.first_host = static_cast<HostId>(hosts_.size());
      VertexId rv = boost::add_vertex(Vertex{Vertex::rack, r}, graph_);
      boost::add_edge(spine, rv, graph_);
      double nic_sum = 0;
      for (const auto& g : rs.hosts) {
        for (std::uint32_t i = 0; i < g.count; ++i) {
          HostId h = static_cast<HostId>(hosts_.size());
          hosts_.push_back(
              HostInfo{r, g.model, g.gpus, static_cast<GpuIndex>(total_gpus_), g.nic_gbps, g.cpu_milli, g.mem_mib});
          VertexId hv = boost::add_vertex(Vertex{Vertex::host, h}, graph_);
          boost::add_edge(rv, hv, graph_);
          for (std::uint16_t k = 0; k < g.gpus; ++k) {
            VertexId gv = boost::add_vertex(Vertex{Vertex::gpu, static_cast<std::uint32_t>(total_gpus_)}, graph_);
            boost::add_edge(hv, gv, graph_);
            gpu_vertex_.push_back(gv);
            ++total_gpus_;
          }
          gpus_by_model_[g.model] += g.gpus;
          max_host_gpus_[g.model] = std::max(max_host_gpus_[g.model], g.gpus);
          max_host_gpus_all_ = std::max(max_host_gpus_all_, g.gpus);
          if (g.gpus > 0) {
            models_present_ |= ModelMask{1} << g.model;
            min_cpu_per_gpu_[g.model] = std::min<std::uint32_t>(min_cpu_per_gpu_[g.model], g.cpu_milli / g.gpus);
            min_mem_per_gpu_[g.model] = std::min<std::uint32_t>(min_mem_per_gpu_[g.model], g.mem_mib / g.gpus);
          } else {
            models_present_ |= kHostsWithoutGpus;
          }
          const std::size_t cls = g.gpus ? std::size_t{g.model} : catalog.size();
          max_cpu_[cls] = std::max(max_cpu_[cls], g.cpu_milli);
          max_cpu_all_ = std::max(max_cpu_all_, g.cpu_milli);
          total_cpu_milli_ += g.cpu_milli;
          total_mem_mib_ += g.mem_mib;
          nic_sum += g.nic_gbps;
        }
      }
      rack.hosts = static_cast<std::uint32_t>(hosts_.size()) - rack.first_host;
      if (rs.uplink_gbps > 0) {
        rack.uplink_gbps = rs.uplink_gbps;
        rack.oversubscription = nic_sum > 0 ? nic_sum / rs.uplink_gbps : 1;
      } else {
        rack.oversubscription = rs.oversubscription > 0 ? rs.oversubscription : 1;
        rack.uplink_gbps = nic_sum / rack.oversubscription;
      }
      racks_.push_back(rack);
    }
  }
  // Parents and depths by a breadth-first walk from the spine; hops are then a walk to the
  // lowest common ancestor.
  const auto n = boost::num_vertices(graph_);
  parent_.assign(n, spine);
  depth_.assign(n, 0);
  auto visitor = boost::make_bfs_visitor(std::make_pair(
      boost::record_predecessors(parent_.data(), boost::on_tree_edge()),
      boost::record_distances(depth_.data(), boost::on_tree_edge())));
  boost::breadth_first_search(graph_, spine, boost::visitor(visitor));
}

HostId Topology::host_of_gpu(GpuIndex g) const {
  auto it = std::upper_bound(hosts_.begin(), hosts_.end(), g,
                             [](GpuIndex x, const HostInfo& h) { return x < h.first_gpu; });
  assert(it != hosts_.begin());
  return static_cast<HostId>(std::distance(hosts_.begin(), it) - 1);
}

Tier Topology::host_tier(HostId a, HostId b) const {
  if (a == b) return Tier::same_host;
  if (hosts_[a].rack == hosts_[b].rack) return Tier::same_rack;
  return Tier::cross_rack;
}

Tier Topology::tier(GpuIndex a, GpuIndex b) const {
  if (a == b) return Tier::same_gpu;
  return host_tier(host_of_gpu(a), host_of_gpu(b));
}

int Topology::hops(GpuIndex a, GpuIndex b) const {
  VertexId u = gpu_vertex_[a], v = gpu_vertex_[b];
  int h = 0;
  while (depth_[u] > depth_[v]) u = parent_[u], ++h;
  while (depth_[v] > depth_[u]) v = parent_[v], ++h;
  while (u != v) u = parent_[u], v = parent_[v], h += 2;
  return h;
}

}  // namespace schedlab::cluster
