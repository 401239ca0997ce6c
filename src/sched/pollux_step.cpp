// `scheduler.policy: pollux`: the views the step gathered, turned into Pollux's numbers.
#include "sched/pollux_step.h"

#include <algorithm>

#include "perf/goodput_steps.h"
#include "sched/pollux_plan.h"

namespace schedlab::sched {

std::vector<std::uint64_t> PolluxStep::plan(const std::vector<ElasticJobView>& jobs, std::uint64_t capacity) {
  if (jobs.empty()) return {};
  std::vector<PolluxJob> pj;
  std::vector<int> step;
  pj.reserve(jobs.size());
  step.reserve(jobs.size());
  const double r = settings_.restart_penalty_s;
  for (const auto& j : jobs) {
    // The artifact's discount: a job that has run `age` seconds and restarted k times keeps
    // (age - k r) / (age + r) of its speedup at a new count (r = 0: no discount).
    double keep = 1;
    if (j.held > 0 && r > 0) keep = std::max(j.age_s - j.resizes * r, 0.0) / (j.age_s + r);
    pj.push_back({j.spec->min_size(), j.spec->max_size(), j.held, keep});
    step.push_back(perf::progress_step(j.work_total, j.remaining));
  }
  const std::uint64_t fair = std::max<std::uint64_t>(1, (capacity + jobs.size() - 1) / jobs.size());
  return pollux_sizes(pj, capacity, fair, settings_.p,
                      [&](std::size_t i, std::uint64_t n) { return goodput(*jobs[i].spec, n, step[i]); });
}

}  // namespace schedlab::sched
