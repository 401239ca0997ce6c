// `scheduler.policy: pollux` (docs/elastic.md, "pollux"): the resizing step (elastic_step.h)
// with Pollux's counts (pollux_plan.h): each job's goodput from the perf model's speed and its
// statistical efficiency at the best batch (perf_model.h goodput_ratio), speedups over the fair
// share ceil(GPUs / jobs), the fairness exponent p, and the artifact's restart discount for a
// running job whose count changes: max(age - resizes x penalty, 0) / (age + penalty). With
// `growth`, a job's count is capped at growth x the largest it has run at (the artifact's
// exploration); with `interval_s`, it also re-plans that often while jobs are active.
#pragma once

#include <unordered_map>

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
  // The largest count each active job has run at (growth only); rebuilt at each plan from the
  // jobs it sees, so that ended jobs leave it.
  std::unordered_map<workload::JobId, std::uint64_t> largest_;
  engine::Time next_wake_ = 0;  // the re-plan asked for last (interval_s only)
};

}  // namespace schedlab::sched
