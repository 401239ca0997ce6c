// `scheduler.policy: pollux` (docs/elastic.md, "pollux"): the resizing step (elastic_step.h)
// with Pollux's counts (pollux_plan.h): each job's goodput from the perf model's speed and its
// statistical efficiency at the best batch (perf_model.h goodput_ratio), speedups over the fair
// share ceil(GPUs / jobs), the fairness exponent p, and the artifact's restart discount for a
// running job whose count changes: max(age - resizes x penalty, 0) / (age + penalty).
#pragma once

#include "sched/elastic_settings.h"
#include "sched/elastic_step.h"

namespace schedlab::sched {

class PolluxStep final : public ElasticStep {
 public:
  PolluxStep(Scheduler& s, PolluxSettings settings) : ElasticStep(s, "pollux"), settings_(settings) {}

 protected:
  std::vector<std::uint64_t> plan(const std::vector<ElasticJobView>& jobs, std::uint64_t capacity) override;
  // Pollux re-tunes each job's batch for goodput: the simulator charges the goodput ratio.
  bool adapts_batch() const override { return true; }

 private:
  PolluxSettings settings_;
};

}  // namespace schedlab::sched
