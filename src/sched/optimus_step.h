// `scheduler.policy: optimus` (docs/elastic.md, "optimus"): the resizing step (elastic_step.h)
// with Optimus' sizes (optimus_plan.h): running jobs keep at least their fewest GPUs, waiting ones
// get theirs in queue order as far as they fit, then one GPU at a time to the largest drop in
// remaining time; with the churn guard (`min_gain_s`), a running job whose growth would not cut
// its remaining time by more than that keeps its size and the plan is made again.
#pragma once

#include "sched/elastic_settings.h"
#include "sched/elastic_step.h"

namespace schedlab::sched {

class OptimusStep final : public ElasticStep {
 public:
  OptimusStep(Scheduler& s, OptimusSettings settings) : ElasticStep(s, "optimus"), settings_(settings) {}

 protected:
  std::vector<std::uint64_t> plan(const std::vector<ElasticJobView>& jobs, std::uint64_t capacity) override;

 private:
  OptimusSettings settings_;
};

}  // namespace schedlab::sched
