// Filter `gpu-model`: the job's requested model(s) and minimum generation.
#include "sched/builtin_parts.h"

namespace schedlab::sched {
namespace {
class GpuModelFilter final : public Filter {
 public:
  cluster::ModelMask allowed(const PendingJob& job, cluster::ModelMask candidates, const cluster::Topology&) const override {
    return candidates & job.requested;
  }
};
}  // namespace

std::unique_ptr<Filter> make_gpu_model_filter(const PartArgs&) { return std::make_unique<GpuModelFilter>(); }

}  // namespace schedlab::sched
