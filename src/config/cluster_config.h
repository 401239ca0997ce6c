// Loading the GPU catalog (configs/gpus.yaml) and cluster files (configs/clusters/*.yaml)
// into validated values, with file:line errors.
#pragma once

#include <string>

#include "cluster/gpu_catalog.h"
#include "cluster/topology.h"

namespace schedlab::config {

cluster::GpuCatalog load_catalog(const std::string& path);

struct ClusterFile {
  std::string path;
  std::string catalog_path;  // resolved from the cluster file's `catalog:` key
  cluster::ClusterSpec spec;
};

// Reads a cluster file; its GPU model names are checked against `catalog`.
ClusterFile load_cluster(const std::string& path, const cluster::GpuCatalog& catalog);
// The catalog a cluster file names (its `catalog:` key, relative to the file).
std::string catalog_path_of(const std::string& cluster_path);

}  // namespace schedlab::config
