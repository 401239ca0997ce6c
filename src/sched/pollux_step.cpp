// `scheduler.policy: pollux`: the views the step gathered, turned into Pollux's numbers.
#include "sched/pollux_step.h"

#include <algorithm>
#include <cmath>

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
  std::unordered_map<workload::JobId, std::uint64_t> seen;
  for (const auto& j : jobs) {
    // The artifact's discount: a job that has run `age` seconds and restarted k times keeps
    // (age - k r) / (age + r) of its speedup at a new count (r = 0: no discount).
    double keep = 1;
    if (j.held > 0 && r > 0) keep = std::max(j.age_s - j.resizes * r, 0.0) / (j.age_s + r);
    std::uint64_t max = j.spec->max_size();
    if (settings_.growth > 0) {
      const auto it = largest_.find(j.spec->id);
      const std::uint64_t ran = std::max<std::uint64_t>(j.held, it == largest_.end() ? 0 : it->second);
      seen.emplace(j.spec->id, ran);
      // Never below the job's least count, nor below what it holds.
      const double cap = std::max(1.0, std::floor(settings_.growth * static_cast<double>(ran)));
      max = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(std::min(cap, 1e18)), j.spec->min_size(), max);
    }
    pj.push_back({j.spec->min_size(), max, j.held, keep});
    step.push_back(perf::progress_step(j.work_total, j.remaining));
  }
  largest_.swap(seen);
  if (settings_.interval_s > 0 && next_wake_ <= now()) {
    next_wake_ = now() + engine::from_seconds(settings_.interval_s);
    wake_at(next_wake_);
  }
  const std::uint64_t fair = std::max<std::uint64_t>(1, (capacity + jobs.size() - 1) / jobs.size());
  return pollux_sizes(pj, capacity, fair, settings_.p,
                      [&](std::size_t i, std::uint64_t n) { return goodput(*jobs[i].spec, n, step[i]); });
}

}  // namespace schedlab::sched
