// Filter `gpu-hosts-for-gpu-jobs` (Mesos GPU support): jobs that need no GPU stay off hosts
// with GPUs, so that CPU work never strands a GPU host's GPUs by taking its CPUs or memory;
// they run on the CPU-only hosts. Mesos offers agents with GPUs only to frameworks that declare
// the GPU_RESOURCES capability, because any task landing on a GPU agent could otherwise take
// the CPUs and memory the GPU applications need (mesos.apache.org/documentation/latest/gpu-support).
//
// Arg `unless_idle_s` (default 0 = never): a job without GPUs may use a GPU host's spare CPUs
// while no GPU job has waited longer than this. The oldest waiting GPU job is known without a
// scan: the filter watches the queue and keeps the waiting GPU jobs ordered by when they began
// to wait (a set of (since, id), updated as jobs start waiting and stop waiting).
#include <set>
#include <utility>

#include "sched/builtin_parts.h"
#include "sched/part_args.h"

namespace schedlab::sched {
namespace {
class GpuHostsForGpuJobs final : public Filter {
 public:
  explicit GpuHostsForGpuJobs(engine::Time unless_idle) : unless_idle_(unless_idle) {}

  cluster::ModelMask allowed(const PendingJob& job, cluster::ModelMask candidates,
                             const cluster::Topology&) const override {
    if (job.spec->needs_gpu() || unless_idle_ > 0) return candidates;
    return candidates & cluster::kHostsWithoutGpus;
  }

  cluster::ModelMask allowed_now(const PendingJob& job, cluster::ModelMask candidates,
                                 const SchedContext& ctx) const override {
    if (job.spec->needs_gpu() || waiting_.empty()) return candidates;
    // GPU hosts lend their spare CPUs only while GPU work is not kept waiting.
    if (ctx.now - waiting_.begin()->first <= unless_idle_) return candidates;
    return candidates & cluster::kHostsWithoutGpus;
  }

  bool watches_queue() const override { return unless_idle_ > 0; }
  void job_waiting(const PendingJob& job) override {
    if (job.spec->needs_gpu()) waiting_.emplace(job.waiting_since, job.id());
  }
  void job_not_waiting(const PendingJob& job) override {
    if (job.spec->needs_gpu()) waiting_.erase({job.waiting_since, job.id()});
  }

 private:
  engine::Time unless_idle_;
  std::set<std::pair<engine::Time, workload::JobId>> waiting_;  // waiting GPU jobs, oldest first
};
}  // namespace

std::unique_ptr<Filter> make_gpu_hosts_for_gpu_jobs_filter(const PartArgs& args) {
  const util::ArgReader a = part_args(args, "gpu-hosts-for-gpu-jobs", {"unless_idle_s"});
  return std::make_unique<GpuHostsForGpuJobs>(a.seconds("unless_idle_s", 0));
}

}  // namespace schedlab::sched
