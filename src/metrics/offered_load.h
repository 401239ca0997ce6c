// The offered load of a workload on a cluster: the GPU-hours its jobs ask for per hour of the
// trace (from its first to its last submission), against the cluster's GPUs. 1 means the jobs
// ask for every GPU all the time; above 1 the queue can only grow, and waits measure the
// overload, not the policy. Overall, and per GPU model: a job's GPU-hours are shared among the
// models its request allows (all models when it names none) in proportion to their GPU counts,
// so that the overall figure is the GPU-weighted mean of the per-model ones. Services are left
// out (they ask until the run ends); a job whose allowed models are all absent counts overall
// only. Documented in docs/policies.md, "Offered load".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cluster/gpu_catalog.h"

namespace schedlab::metrics {

struct OfferedLoad {
  double gpu_hours = 0;  // asked by the jobs counted
  double span_h = 0;     // from the first to the last submission
  std::uint64_t gpus = 0;
  // Durations were one GPU's work (`perf.reference: one-gpu`): gpu_hours is that work, what the
  // jobs would ask at perfect scaling, so the load is a lower bound of what runs on several GPUs.
  bool one_gpu_work = false;
  // GPU-hours asked / (span_h x gpus); nothing when the span or the cluster's GPUs are 0.
  std::optional<double> overall;
  // Per GPU model of the cluster, in catalog order: its name and load.
  std::vector<std::pair<std::string, std::optional<double>>> by_model;
};

// Adds jobs one by one (a streamed workload), then divides once.
class OfferedLoadTally {
 public:
  // A job submitted at `submit_s` that asks `gpu_hours` on the models of `allowed`.
  void add(double submit_s, double gpu_hours, cluster::ModelMask allowed);
  // `gpus_by_model[m]`: the cluster's GPUs of catalog model m.
  OfferedLoad result(const cluster::GpuCatalog& catalog, const std::vector<std::uint64_t>& gpus_by_model) const;

 private:
  bool any_ = false;
  double first_s_ = 0, last_s_ = 0;
  std::map<cluster::ModelMask, double> hours_by_mask_;  // a trace has few distinct requests
};

// The notice a run prints first: "offered load 0.82 (...; per model: V100 0.95, A100 0.61)".
std::string offered_load_text(const OfferedLoad& load);
// The warning for an overload (overall or one model above 1), naming the settings that lower
// it; nothing at or below 1.
std::optional<std::string> overload_text(const OfferedLoad& load);

}  // namespace schedlab::metrics
