// Per-GPU CPU and memory defaults for jobs whose trace has no such columns.
#include "workload/resource_defaults.h"

#include <algorithm>
#include <limits>

namespace schedlab::workload {

namespace {
// per_gpu x the task's GPU-thousandths / 1000, rounded up, saturating at 2^32 - 1.
std::uint32_t per_task(std::uint32_t per_gpu, const JobSpec& job) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint32_t>::max();
  const std::uint64_t task_milli = job.fractional() ? job.gpu_milli : std::uint64_t{job.gpus_per_task} * 1000;
  if (task_milli > 0 && per_gpu > std::numeric_limits<std::uint64_t>::max() / task_milli) return kMax;
  return static_cast<std::uint32_t>(std::min(kMax, (std::uint64_t{per_gpu} * task_milli + 999) / 1000));
}

class DefaultsSource final : public ForwardingJobSource {
 public:
  DefaultsSource(std::unique_ptr<JobSource> inner, const ResourceDefaults& d) : ForwardingJobSource(std::move(inner)), d_(d) {}
  bool next(JobSpec& out) override {
    if (!inner_->next(out)) return false;
    apply_resource_defaults(out, d_);
    return true;
  }

 private:
  ResourceDefaults d_;
};
}  // namespace

void apply_resource_defaults(JobSpec& job, const ResourceDefaults& d) {
  if (!job.cpu_given) job.cpu_milli = per_task(d.cpu_milli_per_gpu, job);
  if (!job.mem_given) job.mem_mib = per_task(d.mem_mib_per_gpu, job);
}

std::unique_ptr<JobSource> with_resource_defaults(std::unique_ptr<JobSource> inner, const ResourceDefaults& d) {
  return std::make_unique<DefaultsSource>(std::move(inner), d);
}

}  // namespace schedlab::workload
