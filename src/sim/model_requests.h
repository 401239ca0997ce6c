// The GPU models a job's request names (`gpu_model` / openb's `gpu_spec`: names joined by '|';
// empty = any model), minus those older than its min_generation, as a model mask. Each
// distinct request text is resolved once.
#pragma once

#include <string>
#include <unordered_map>

#include "cluster/gpu_catalog.h"
#include "workload/job_spec.h"

namespace schedlab::sim {

class ModelRequests {
 public:
  // `trace_name` names the file in errors (an unknown model is an error at the job's line).
  ModelRequests(const cluster::GpuCatalog& catalog, const workload::StringPool& strings, std::string trace_name)
      : catalog_(catalog), strings_(strings), trace_name_(std::move(trace_name)) {}
  cluster::ModelMask of(const workload::JobSpec& job);

 private:
  const cluster::GpuCatalog& catalog_;
  const workload::StringPool& strings_;
  std::string trace_name_;
  std::unordered_map<workload::Label, cluster::ModelMask> cache_;
};

}  // namespace schedlab::sim
