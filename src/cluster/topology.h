// The physical cluster: spine -> racks -> hosts -> GPUs, held as a Boost.Graph tree, plus
// flat per-host and per-rack tables for the hot paths. Answers locality questions (which
// tier two GPUs share, how many hops apart they are) and capacity questions. Hosts have CPUs
// and memory beside their GPUs; a host may have no GPU at all (a CPU-only host).
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "cluster/gpu_catalog.h"

namespace schedlab::cluster {

using HostId = std::uint32_t;
using RackId = std::uint32_t;
using GpuIndex = std::uint32_t;  // cluster-wide GPU number: host's first_gpu + local index

// The narrowest part of the network two GPUs (or two hosts) have in common.
enum class Tier : std::uint8_t { same_gpu, same_host, same_rack, cross_rack };
const char* tier_name(Tier t);

// CPUs are counted in thousandths (milli-CPUs, as Kubernetes does) and memory in MiB: the
// units traces use, whole numbers, and a host's figures fit 32 bits (config/cluster_config.h).
struct HostInfo {
  RackId rack = 0;
  ModelId model = 0;  // meaningless on a host without GPUs (gpus == 0)
  std::uint16_t gpus = 0;
  GpuIndex first_gpu = 0;
  double nic_gbps = 0;  // host network interface, GB/s
  std::uint32_t cpu_milli = 0;
  std::uint32_t mem_mib = 0;
};

struct RackInfo {
  std::string name;
  HostId first_host = 0;
  std::uint32_t hosts = 0;
  double uplink_gbps = 0;     // rack to spine, GB/s
  double oversubscription = 1;  // sum of host NICs / uplink
};

// One homogeneous group of hosts inside a rack, as written in a cluster file.
struct HostGroupSpec {
  std::uint32_t count = 0;
  std::uint16_t gpus = 0;  // 0 = a CPU-only host
  ModelId model = 0;
  double nic_gbps = 0;
  std::uint32_t cpu_milli = 0;  // per host; the cluster file's defaults are applied by the loader
  std::uint32_t mem_mib = 0;
};

struct RackSpec {
  std::string name;
  std::uint32_t count = 1;  // identical racks
  std::vector<HostGroupSpec> hosts;
  double uplink_gbps = 0;        // if 0, derived from oversubscription
  double oversubscription = 1;   // used when uplink_gbps is 0
};

struct ClusterSpec {
  std::string name;
  double spine_gbps = 0;  // 0 = non-blocking spine
  std::vector<RackSpec> racks;
};

class Topology {
 public:
  Topology(const ClusterSpec& spec, const GpuCatalog& catalog);

  const std::string& name() const { return name_; }
  const GpuCatalog& catalog() const { return *catalog_; }
  const std::vector<HostInfo>& hosts() const { return hosts_; }
  const std::vector<RackInfo>& racks() const { return racks_; }
  const HostInfo& host(HostId h) const { return hosts_[h]; }
  const RackInfo& rack(RackId r) const { return racks_[r]; }
  double spine_gbps() const { return spine_gbps_; }

  std::uint64_t total_gpus() const { return total_gpus_; }
  std::uint64_t gpus_of_model(ModelId m) const { return gpus_by_model_[m]; }
  // The largest GPU count of one host among hosts of model m (0 if none).
  std::uint16_t max_host_gpus(ModelId m) const { return max_host_gpus_[m]; }
  std::uint16_t max_host_gpus() const { return max_host_gpus_all_; }
  // GPU models that some host has, plus kHostsWithoutGpus when a host has no GPU.
  ModelMask models_present() const { return models_present_; }
  std::uint64_t total_cpu_milli() const { return total_cpu_milli_; }
  std::uint64_t total_mem_mib() const { return total_mem_mib_; }
  // Hosts are grouped into classes for CPU-only tasks: one per GPU model (its hosts' spare
  // CPUs) and one more, numbered catalog().size(), for the hosts without GPUs.
  std::size_t classes() const { return catalog_->size() + 1; }
  std::size_t no_gpu_class() const { return catalog_->size(); }
  std::size_t class_of(HostId h) const { return hosts_[h].gpus ? hosts_[h].model : catalog_->size(); }
  // Whether a mask selects a class (kHostsWithoutGpus selects the no-GPU class).
  bool class_in_mask(std::size_t cls, ModelMask mask) const {
    return cls == no_gpu_class() ? (mask & kHostsWithoutGpus) != 0 : (mask >> cls & 1) != 0;
  }
  // Calls f(class) for every class in a mask (kHostsWithoutGpus selects the no-GPU class).
  template <class F>
  void for_each_class(ModelMask mask, F&& f) const {
    for (ModelId m = 0; m < catalog_->size(); ++m)
      if (mask >> m & 1) f(std::size_t{m});
    if (mask & kHostsWithoutGpus) f(catalog_->size());
  }
  // The most CPUs (milli) one host of a class has.
  std::uint32_t max_host_cpu_milli(std::size_t cls) const { return max_cpu_[cls]; }
  std::uint32_t max_host_cpu_milli() const { return max_cpu_all_; }
  // The fewest CPUs (milli) / memory (MiB) per GPU among hosts of model m (rounded down): a
  // task asking no more per GPU than this fits any host of m with the GPUs for it, unless
  // CPU-only tasks or greedier tasks took the host's CPUs first.
  std::uint32_t min_cpu_milli_per_gpu(ModelId m) const { return min_cpu_per_gpu_[m]; }
  std::uint32_t min_mem_mib_per_gpu(ModelId m) const { return min_mem_per_gpu_[m]; }

  HostId host_of_gpu(GpuIndex g) const;
  Tier tier(GpuIndex a, GpuIndex b) const;
  Tier host_tier(HostId a, HostId b) const;
  // Edges on the path between two GPUs in the spine/rack/host/GPU tree.
  int hops(GpuIndex a, GpuIndex b) const;

 private:
  struct Vertex {
    enum Kind : std::uint8_t { spine, rack, host, gpu } kind = spine;
    std::uint32_t index = 0;
  };
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, Vertex>;
  using VertexId = Graph::vertex_descriptor;

  std::string name_;
  const GpuCatalog* catalog_;
  double spine_gbps_ = 0;
  std::vector<HostInfo> hosts_;
  std::vector<RackInfo> racks_;
  Graph graph_;
  std::vector<VertexId> gpu_vertex_;
  std::vector<VertexId> parent_;  // BFS tree from the spine
  std::vector<int> depth_;
  std::uint64_t total_gpus_ = 0;
  std::vector<std::uint64_t> gpus_by_model_;
  std::vector<std::uint16_t> max_host_gpus_;
  std::uint16_t max_host_gpus_all_ = 0;
  ModelMask models_present_ = 0;
  std::uint64_t total_cpu_milli_ = 0;
  std::uint64_t total_mem_mib_ = 0;
  std::vector<std::uint32_t> max_cpu_;                            // [class]
  std::uint32_t max_cpu_all_ = 0;
  std::vector<std::uint32_t> min_cpu_per_gpu_, min_mem_per_gpu_;  // [model]
};

}  // namespace schedlab::cluster
