// Admission `gang`: all of a gang's remaining tasks start at one instant, or none do.
#include <fmt/format.h>

#include "sched/builtin_parts.h"

namespace schedlab::sched {
namespace {
class GangAdmission final : public Admission {
 public:
  Status admit(const PendingJob& job, const SchedContext& ctx) const override {
    // A cheap count check first, so that a blocked gang costs no placement attempt.
    if (!job.spec->gang || job.spec->fractional()) return Status::ok();
    std::uint64_t need = std::uint64_t{job.tasks_left} * job.spec->gpus_per_task;
    // The models its placement may use: without a gpu-model filter the request is not binding.
    std::uint64_t free = ctx.alloc.free_gpus(job.allowed);
    if (free < need) return Status::wait("gang needs {} GPUs, {} free", need, free);
    return Status::ok();
  }
  bool all_or_nothing(const PendingJob& job) const override { return job.spec->gang; }
  std::optional<std::uint64_t> admits_with_free(const PendingJob& job) const override {
    if (!job.spec->gang || job.spec->fractional()) return 0;
    return std::uint64_t{job.tasks_left} * job.spec->gpus_per_task;
  }
};
}  // namespace

std::unique_ptr<Admission> make_gang_admission(const PartArgs&) { return std::make_unique<GangAdmission>(); }

}  // namespace schedlab::sched
