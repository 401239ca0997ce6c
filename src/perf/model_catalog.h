// Training workloads (configs/models.yaml): parameter count, batch, precision and measured
// single-GPU throughput per GPU model, loaded with file:line errors.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/gpu_catalog.h"
#include "perf/calibration_profile.h"
#include "perf/goodput.h"
#include "workload/checkpoint.h"

namespace schedlab::perf {

// Sense ranges for configs/models.yaml: a figure outside them is a typo or a broken number, and
// would give a run of zero or infinite length.
inline constexpr int kMaxBatch = 1 << 24;
inline constexpr double kMinParams = 1, kMaxParams = 1e15;
inline constexpr double kMinFlopsPerSample = 1, kMaxFlopsPerSample = 1e21;
inline constexpr double kMinEfficiency = 1e-6;
inline constexpr double kMinSamplesPerSecond = 1e-6, kMaxSamplesPerSecond = 1e9;

struct TrainingModel {
  std::string name, description;
  double params = 0;  // trainable parameters
  int batch = 1;      // samples per GPU per iteration
  Dtype dtype = Dtype::fp32;       // compute precision
  Dtype grad_dtype = Dtype::fp32;  // precision of the allreduced gradients
  double flops_per_sample = 0;     // 0 = unknown
  double efficiency = 0;           // fraction of peak, with flops_per_sample
  std::map<std::string, double> samples_per_s;  // GPU model name -> single-GPU throughput
  std::string first_gpu;  // the first GPU listed (the fallback anchor)
  // Checkpointing (docs/lifecycle.md): work between saves (trace seconds; < 0 = the model gives
  // no checkpoint figures) and the checkpoint's bytes per parameter (weights + optimizer state).
  double ckpt_interval_s = -1;
  double ckpt_bytes_per_param = 0;
  // Compute slowdown from sharing a host (`host_gpu_slowdown`, fraction per further GPU): each GPU
  // of the gang computes 1 + s x (g - 1) times slower, g = the gang's most GPUs on one host (the
  // slowest rank sets the pace). It stands for what the GPUs of a host share: CPU cores feeding the
  // data loaders, the PCIe root complex, host memory bandwidth. 0 (default) = no such cost.
  double host_gpu_slowdown = 0;
  // Pollux's statistical efficiency (`statistical_efficiency:`); none = throughput only.
  StatisticalEfficiency stat_eff;
  long line = 0;

  // Bytes allreduced per iteration: params x size of grad_dtype.
  double gradient_bytes() const;
};

class ModelCatalog {
 public:
  ModelCatalog() = default;
  explicit ModelCatalog(std::vector<TrainingModel> models) : models_(std::move(models)) {}
  const std::vector<TrainingModel>& models() const { return models_; }
  const TrainingModel* find(const std::string& name) const;
  // Like find, but an unknown name throws InputError listing the valid ones.
  const TrainingModel& get(const std::string& name) const;
  std::vector<std::string> names() const;
  std::string file;
  // `checkpoint_storage:` bandwidth one job sees to write and read its checkpoint (GB/s, 1e9
  // bytes); 0 when the catalog gives none.
  double ckpt_write_gb_s = 0;
  double ckpt_read_gb_s = 0;

  // The model's checkpoint costs: size = params x bytes_per_param, save = size / write
  // bandwidth, restore = size / read bandwidth; false when the model has no checkpoint figures.
  bool checkpoint_cost(const TrainingModel& model, workload::CheckpointCost& out) const;

 private:
  std::vector<TrainingModel> models_;
};

ModelCatalog load_model_catalog(const std::string& path);
ModelCatalog load_model_catalog_text(const std::string& text, const std::string& name);

std::size_t dtype_bytes(Dtype dtype);
// Checkpoint bytes per parameter when a model does not say: fp32 weights and Adam's two fp32
// moments (12); with mixed precision, 16-bit weights plus fp32 master weights and moments (14).
double default_checkpoint_bytes_per_param(Dtype dtype);

// Single-GPU samples/s of `model` on GPU `gpu`: the measured figure when listed; else the
// FLOPs estimate (profile TFLOP/s x efficiency / flops_per_sample) when the profile knows the GPU
// and the model gives FLOPs; else the first listed figure scaled by the catalog's relative speeds.
double gpu_throughput(const TrainingModel& model, const cluster::GpuModel& gpu, const cluster::GpuCatalog& catalog,
                      const CalibrationProfile& profile);

}  // namespace schedlab::perf
