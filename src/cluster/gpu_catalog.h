// The GPU models a cluster may contain (configs/gpus.yaml): generation, memory, relative
// speed, intra-host link, and the achieved collective figures of its reference server with
// their sources. Models are referred to by a small dense ModelId.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace schedlab::cluster {

using ModelId = std::uint16_t;
// A set of models (bit i = ModelId i); a catalog holds at most 63 models. The top bit stands
// for the hosts without GPUs (CPU-only hosts): a mask says which hosts may take a job's tasks,
// and a job that needs no GPU may run on those too.
using ModelMask = std::uint64_t;
inline constexpr std::size_t kMaxModels = 63;
inline constexpr ModelMask kHostsWithoutGpus = ModelMask{1} << 63;

struct GpuModel {
  std::string name;
  int generation = 0;  // compute capability x10
  double memory_gb = 0;
  double speed = 1.0;  // relative training throughput, V100 = 1
  std::string intra_link;
  double intra_gbps = 0;
  double pcie_gbps = 0;
  // Achieved figures of the model's reference server, each with its source (configs/gpus.yaml),
  // 0 when the catalog gives none. They replace the datasheet profile's β for this model
  // (perf/gang_shape.h); a measured profile's tiers win over them.
  double intra_busbw_gbps = 0;  // ring allreduce bus bandwidth over all GPUs of one host, GB/s
  std::string intra_source;
  double nic_gbps = 0;          // the host's NICs together, line rate per direction, GB/s
  double nic_busbw_gbps = 0;    // ring allreduce bus bandwidth across such hosts, GB/s
  std::string nic_source;
};

class GpuCatalog {
 public:
  GpuCatalog() = default;
  explicit GpuCatalog(std::vector<GpuModel> models);

  const std::vector<GpuModel>& models() const { return models_; }
  const GpuModel& model(ModelId id) const { return models_[id]; }
  std::size_t size() const { return models_.size(); }
  std::optional<ModelId> find(std::string_view name) const;
  std::vector<std::string> names() const;
  // Every GPU model (not kHostsWithoutGpus).
  ModelMask all() const { return (ModelMask{1} << models_.size()) - 1; }
  // The file the catalog was read from ("" when built in code); files that belong with it
  // (configs/models.yaml) are found beside it.
  const std::string& source_file() const { return source_file_; }
  void set_source_file(std::string path) { source_file_ = std::move(path); }

 private:
  std::vector<GpuModel> models_;
  std::string source_file_;
};

}  // namespace schedlab::cluster
