// Goodput of a data-parallel job as Pollux models it (Qiao et al., OSDI'21): throughput (samples
// per second, from the iteration model) times statistical efficiency, the progress one sample
// makes at batch size M relative to one at the job's initial batch M0. Efficiency comes from the
// gradient noise scale phi: E(M) = (phi + M0) / (phi + M), with phi read from configs/models.yaml
// as a curve over training progress (docs/elastic.md "Goodput"). Used by `model explain --gpus
// A..B` and by the elastic policies to choose a job's GPU count and batch size.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace schedlab::perf {

// A model's `statistical_efficiency:` entry. Empty `noise` = the model has none (throughput only).
struct StatisticalEfficiency {
  double init_batch = 0;  // M0: the batch the job's work is counted at (samples per step)
  double max_batch = 0;   // the largest total batch the job may use
  // (progress in [0, 1], phi in samples), progress ascending; linear in between, flat outside.
  std::vector<std::pair<double, double>> noise;
  std::string source;
  bool given() const { return !noise.empty(); }
  double noise_scale(double progress) const;
  // E(M) = (phi + M0) / (phi + M), in (0, 1] for M >= M0.
  double efficiency(double progress, double batch) const;
};

// What a job does on `gpus` GPUs at one total batch.
struct GoodputPoint {
  int gpus = 0;
  double batch = 0;          // total samples per step
  double iteration_us = 0;
  double throughput = 0;     // samples per second
  double efficiency = 1;     // statistical efficiency at `batch` (1 without parameters)
  double goodput = 0;        // throughput x efficiency: M0-equivalent samples per second
};

// The step of one data-parallel job: per-GPU compute rate (samples/s of its slowest GPU), its
// communication per step and the share of compute that can hide it (perf/iteration_model.h).
struct StepCost {
  int gpus = 1;
  double per_gpu_samples_per_s = 0;
  double comm_us = 0;
  double overlap = 0;
};

// The job at total batch `batch`: compute (batch / gpus) / rate, plus communication less what
// the overlap hides.
GoodputPoint goodput_at(const StepCost& step, double batch, const StatisticalEfficiency& eff, double progress);

// The total batch in [max(M0, gpus), max_batch] with the highest goodput, in whole samples per
// GPU. Exact, not sampled: while communication is not fully hidden the goodput is
// M / ((a M + c)(phi + M)) up to constants, largest at M = sqrt(c phi / a); once it is hidden,
// throughput is flat and efficiency falls, so the optimum is one of those two points or an end
// of the range. Without parameters the batch stays `fixed_local_batch` per GPU.
GoodputPoint best_goodput(const StepCost& step, const StatisticalEfficiency& eff, double progress,
                          double fixed_local_batch);

}  // namespace schedlab::perf
