// Elastic jobs' GPU ranges (docs/elastic.md, "Elastic jobs"): the check every range passes,
// wherever it comes from (a trace's min_gpus and max_gpus columns, or the scenario's
// `elastic:` scales), and a JobSource that gives the scenario's range to jobs without one.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "engine/time.h"
#include "workload/job_spec.h"

namespace schedlab::workload {

// The scenario's `elastic:` section. A job without a range of its own gets
// [max(1, floor(size * min_scale)), ceil(size * max_scale)] of its traced size, at most
// `cluster_gpus` and kMaxElasticGpus; with both scales 1 (the default) jobs stay rigid.
// The most GPUs an elastic range may reach (JobSpec keeps ranges in 16 bits).
inline constexpr std::uint32_t kMaxElasticGpus = 65535;

struct ElasticDefaults {
  double min_scale = 1, max_scale = 1;
  engine::Time restart = -1;  // restart_s: a resize's cost; negative = checkpoint save + restore
  long line = 0;              // of `elastic:`, for errors
  bool scales() const { return min_scale != 1 || max_scale != 1; }
};

struct RangeError {
  std::string field;  // min_gpus or max_gpus
  std::string what;
};
// Why the job's range is wrong (nullopt when it is right or not given):
// min_gpus 0, min above max, the traced size outside the range, an elastic job whose tasks
// are not one whole GPU each (after as_one_gpu_tasks), a range above `cluster_gpus` (0 = unknown).
std::optional<RangeError> range_error(const JobSpec& job, std::uint64_t cluster_gpus);

// An elastic job runs one-GPU tasks: traced 2 x 8-GPU tasks become 16 x 1 (the same GPUs).
void as_one_gpu_tasks(JobSpec& job);

// `inner`'s jobs, those without a range given the scenario's scales (GPU jobs of whole GPUs only).
std::unique_ptr<JobSource> with_elastic_defaults(std::unique_ptr<JobSource> inner, const ElasticDefaults& defaults,
                                                 std::uint64_t cluster_gpus);

}  // namespace schedlab::workload
