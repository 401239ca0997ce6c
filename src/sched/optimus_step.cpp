// `scheduler.policy: optimus`: Optimus' greedy sizes, and the churn guard around them.
#include "sched/optimus_step.h"

#include "sched/optimus_plan.h"

namespace schedlab::sched {

std::vector<std::uint64_t> OptimusStep::plan(const std::vector<ElasticJobView>& jobs, std::uint64_t capacity) {
  std::vector<SizingJob> sizing;
  sizing.reserve(jobs.size());
  for (const auto& j : jobs) sizing.push_back({j.spec->min_size(), j.spec->max_size(), j.remaining});
  auto speed_of = [&](std::size_t i, std::uint64_t n) { return speed(*jobs[i].spec, n); };
  auto sizes = optimus_sizes_by(sizing, capacity, speed_of);
  if (settings_.min_gain_s <= 0) return sizes;
  // The guard: a running job grows only where its remaining time (work units are microseconds
  // at speed 1) drops by more than min_gain_s; one that would not is pinned at its size and
  // the rest re-planned, until no growth is pinned (each round pins one job more at least).
  const double min_gain_us = settings_.min_gain_s * 1e6;
  for (bool pinned = true; pinned;) {
    pinned = false;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const std::uint64_t held = jobs[i].held;
      if (held == 0 || sizes[i] <= held || sizing[i].max == held) continue;
      const double drop = jobs[i].remaining / speed_of(i, held) - jobs[i].remaining / speed_of(i, sizes[i]);
      if (drop > min_gain_us) continue;
      sizing[i].min = sizing[i].max = held;
      pinned = true;
    }
    if (pinned) sizes = optimus_sizes_by(sizing, capacity, speed_of);
  }
  return sizes;
}

}  // namespace schedlab::sched
