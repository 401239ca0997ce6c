// Loading the GPU catalog (configs/gpus.yaml) and cluster files (configs/clusters/*.yaml)
// into validated values, with file:line errors.
#pragma once

#include <cstdint>
#include <string>

#include "cluster/gpu_catalog.h"
#include "cluster/topology.h"
#include "util/parsed_yaml_files.h"

namespace schedlab::config {

// Limits of a cluster file (README.md, "Cluster files"). The topology holds state per GPU and per
// host, so a larger cluster is refused where its count is written instead of exhausting memory.
inline constexpr std::uint64_t kMaxClusterGpus = 10'000'000;
inline constexpr std::uint64_t kMaxClusterHosts = 1'000'000;
inline constexpr std::uint16_t kMaxGpusPerHost = 1024;
// A host group that does not give its CPUs and memory gets these per GPU: an 8-GPU host has
// 96 CPUs and 1,024 GB. 96 CPUs is what the 8-GPU nodes of Alibaba's openb 2023 cluster have
// (openb_node_list_gpu_node.csv: 549 G2 nodes with 96,000 milli-CPUs), and 1 TB what NVIDIA's
// DGX A100 ships with (DGX A100 user guide: 1 TB of system memory for 8 GPUs). A host without
// GPUs has no default: its group must give both. CPU and memory limits: cluster/resources.h.
inline constexpr double kDefaultHostCpusPerGpu = 12;
inline constexpr double kDefaultHostMemGbPerGpu = 128;
// Sense ranges for the numbers of gpus.yaml and cluster files: bandwidths from 1 MB/s to 1 PB/s,
// relative speeds within a factor of a million of V100's, memory up to 1 PB.
inline constexpr double kMinLinkGbps = 1e-3, kMaxLinkGbps = 1e6;
inline constexpr double kMinRelativeSpeed = 1e-6, kMaxRelativeSpeed = 1e6;
inline constexpr double kMaxMemoryGb = 1e6;
inline constexpr double kMaxOversubscription = 1e6;

// `files` (may be null): parsed copies set aside for forks (util/parsed_yaml_files.h), for
// these loads and load_scenario's.
cluster::GpuCatalog load_catalog(const std::string& path, util::ParsedYamlFiles* files = nullptr);

struct ClusterFile {
  std::string path;
  std::string catalog_path;  // resolved from the cluster file's `catalog:` key
  cluster::ClusterSpec spec;
};

// Reads a cluster file; its GPU model names are checked against `catalog`.
ClusterFile load_cluster(const std::string& path, const cluster::GpuCatalog& catalog,
                         util::ParsedYamlFiles* files = nullptr);
// The catalog a cluster file names (its `catalog:` key, relative to the file).
std::string catalog_path_of(const std::string& cluster_path, util::ParsedYamlFiles* files = nullptr);

}  // namespace schedlab::config
