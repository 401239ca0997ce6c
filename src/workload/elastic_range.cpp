// Elastic jobs' GPU ranges: their check, the one-GPU-task form, and the scenario's defaults.
#include "workload/elastic_range.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace schedlab::workload {

std::optional<RangeError> range_error(const JobSpec& job, std::uint64_t cluster_gpus) {
  if (job.min_gpus == 0 && job.max_gpus == 0) return std::nullopt;
  if (job.min_gpus == 0) return RangeError{"min_gpus", "0: a job runs on at least 1 GPU"};
  if (job.min_gpus > job.max_gpus)
    return RangeError{"min_gpus",
                      fmt::format("{} is above max_gpus {} (the range is upside down)", job.min_gpus, job.max_gpus)};
  const std::uint64_t size = job.total_gpus();
  if (size < job.min_gpus || size > job.max_gpus)
    return RangeError{"min_gpus", fmt::format("the traced size, {} GPUs, is outside the range [{}, {}]", size,
                                              job.min_gpus, job.max_gpus)};
  if (job.elastic() && (job.gpus_per_task != 1 || job.fractional()))
    return RangeError{"max_gpus", fmt::format("an elastic job runs whole one-GPU tasks ({} tasks x {} GPUs{} given)",
                                              job.tasks, job.gpus_per_task, job.fractional() ? ", a GPU share" : "")};
  if (cluster_gpus > 0 && job.max_gpus > cluster_gpus)
    return RangeError{"max_gpus", fmt::format("{} is above the cluster's {} GPUs", job.max_gpus, cluster_gpus)};
  return std::nullopt;
}

void as_one_gpu_tasks(JobSpec& job) {
  if (!job.elastic() || job.gpus_per_task <= 1 || job.fractional()) return;
  job.tasks = static_cast<std::uint32_t>(job.total_gpus());  // fits: readers bound a job's GPUs to 32 bits
  job.gpus_per_task = 1;
}

namespace {
class ElasticSource final : public ForwardingJobSource {
 public:
  ElasticSource(std::unique_ptr<JobSource> inner, const ElasticDefaults& d, std::uint64_t cluster_gpus)
      : ForwardingJobSource(std::move(inner)), d_(d), cluster_gpus_(cluster_gpus) {}
  bool next(JobSpec& out) override {
    if (!inner_->next(out)) return false;
    // A range from the trace wins; jobs of shares, CPU-only jobs and services stay rigid.
    if (out.min_gpus != 0 || out.max_gpus != 0 || !out.needs_gpu() || out.fractional() || out.kind != JobKind::batch)
      return true;
    const double size = static_cast<double>(out.total_gpus());
    const auto lo = std::max(1.0, std::floor(size * d_.min_scale));
    const auto hi = std::min(
        {std::ceil(size * d_.max_scale), static_cast<double>(cluster_gpus_), static_cast<double>(kMaxElasticGpus)});
    if (hi < size) return true;  // larger than the cluster already: it is dropped as it is
    out.min_gpus = static_cast<std::uint16_t>(lo);
    out.max_gpus = static_cast<std::uint16_t>(std::max(hi, lo));
    as_one_gpu_tasks(out);
    return true;
  }

 private:
  ElasticDefaults d_;
  std::uint64_t cluster_gpus_;
};
}  // namespace

std::unique_ptr<JobSource> with_elastic_defaults(std::unique_ptr<JobSource> inner, const ElasticDefaults& defaults,
                                                 std::uint64_t cluster_gpus) {
  if (!defaults.scales()) return inner;
  return std::make_unique<ElasticSource>(std::move(inner), defaults, cluster_gpus);
}

}  // namespace schedlab::workload
