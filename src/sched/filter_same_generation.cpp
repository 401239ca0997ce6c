// Filter `same-generation`: a multi-GPU job's GPUs all of one generation (the scheduler
// then tries one generation at a time, newest first).
#include "sched/builtin_parts.h"

namespace schedlab::sched {
namespace {
class SameGenerationFilter final : public Filter {
 public:
  cluster::ModelMask allowed(const PendingJob&, cluster::ModelMask candidates, const cluster::Topology&) const override {
    return candidates;
  }
  bool one_generation(const PendingJob& job) const override { return job.spec->total_gpus() > 1; }
};
}  // namespace

std::unique_ptr<Filter> make_same_generation_filter(const PartArgs&) {
  return std::make_unique<SameGenerationFilter>();
}

}  // namespace schedlab::sched
