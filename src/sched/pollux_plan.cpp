// Pollux's allocation by a deterministic local search on the power mean of speedups.
#include "sched/pollux_plan.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace schedlab::sched {

namespace {

// The mean's monotone stand-in, a sum over jobs of u(s_j): for p < 0 maximising the mean is
// minimising sum (s + eps)^p, so u = -(s + eps)^p; for p > 0 u = (s + eps)^p; for p = 0 log.
class Objective {
 public:
  Objective(const std::vector<PolluxJob>& jobs, std::uint64_t fair, double p,
            const std::function<double(std::size_t, std::uint64_t)>& goodput)
      : jobs_(jobs), fair_(fair), p_(p), goodput_(goodput), base_(jobs.size(), 0), u_(jobs.size()) {}

  // Job i's term on n GPUs (memoised).
  double u(std::size_t i, std::uint64_t n) {
    auto& row = u_[i];
    if (row.empty()) row.assign(jobs_[i].max + 1, std::numeric_limits<double>::quiet_NaN());
    if (!std::isnan(row[n])) return row[n];
    double s = 0;
    if (n > 0) {
      if (base_[i] == 0) base_[i] = goodput_(i, fair_);
      s = goodput_(i, n) / base_[i];
      if (jobs_[i].held > 0 && n != jobs_[i].held) s *= jobs_[i].keep;  // the restart penalty
    }
    const double x = s + kPolluxEpsilon;
    return row[n] = p_ == 0 ? std::log(x) : (p_ < 0 ? -std::pow(x, p_) : std::pow(x, p_));
  }

 private:
  const std::vector<PolluxJob>& jobs_;
  std::uint64_t fair_;
  double p_;
  const std::function<double(std::size_t, std::uint64_t)>& goodput_;
  std::vector<double> base_;            // goodput on the fair share; 0 = not yet asked
  std::vector<std::vector<double>> u_;  // by job, GPUs; NaN = not yet asked
};

struct Move {
  std::uint64_t to = 0;
  double rate = 0;  // gain per GPU
};

}  // namespace

std::vector<std::uint64_t> pollux_sizes(const std::vector<PolluxJob>& jobs, std::uint64_t capacity, std::uint64_t fair,
                                        double p, const std::function<double(std::size_t, std::uint64_t)>& goodput) {
  const std::size_t n_jobs = jobs.size();
  std::vector<std::uint64_t> size(n_jobs, 0);
  std::uint64_t used = 0;
  for (std::size_t i = 0; i < n_jobs; ++i) used += size[i] = jobs[i].held;
  if (used > capacity) throw std::logic_error("pollux_sizes: the running jobs hold more than the capacity");
  std::uint64_t free = capacity - used;
  Objective obj(jobs, fair == 0 ? 1 : fair, p, goodput);

  // A job's best growth from its count now: to any count up to `reach` (its max, lowered where a
  // growth could not be funded), from 0 at least min, the one of highest gain per GPU (ties: the
  // fewer GPUs). Memoised until its count or reach changes.
  std::vector<Move> up(n_jobs);
  std::vector<char> stale(n_jobs, 1);
  std::vector<std::uint64_t> reach(n_jobs);
  for (std::size_t i = 0; i < n_jobs; ++i) reach[i] = jobs[i].max;
  auto reset_reach = [&] {
    for (std::size_t i = 0; i < n_jobs; ++i)
      if (reach[i] != jobs[i].max) reach[i] = jobs[i].max, stale[i] = 1;
  };
  auto best_up = [&](std::size_t i) -> const Move& {
    if (!stale[i]) return up[i];
    stale[i] = 0;
    up[i] = Move{};
    const double here = obj.u(i, size[i]);
    for (std::uint64_t n = size[i] == 0 ? jobs[i].min : size[i] + 1; n <= reach[i]; ++n) {
      const double rate = (obj.u(i, n) - here) / static_cast<double>(n - size[i]);
      if (rate > up[i].rate) up[i] = Move{n, rate};
    }
    return up[i];
  };
  // A donor's next step down: one GPU, or from its min to 0 for a job that held none before
  // this plan (a running job keeps its min: Pollux's search never stops it here).
  auto down_of = [&](std::size_t k, std::uint64_t t) -> std::uint64_t {
    if (t > jobs[k].min) return t - 1;
    if (t > 0 && jobs[k].held == 0) return 0;
    return t;
  };

  // A donor's next step down from t and what it loses per GPU freed. Each job's step from its
  // count now is kept until that count changes; a funding works on a copy.
  struct Give {
    std::uint64_t to = 0;
    double rate = 0;
    bool can = false;  // it has a step down
  };
  auto give_of = [&](std::size_t k, std::uint64_t t) -> Give {
    const std::uint64_t d = down_of(k, t);
    if (d == t) return {};
    return {d, (obj.u(k, t) - obj.u(k, d)) / static_cast<double>(t - d), true};
  };
  std::vector<Give> give(n_jobs), trial_give;
  std::vector<char> give_kept(n_jobs, 0);

  // Each applied move raises the objective strictly and each refused one lowers a reach, so the
  // search ends; the bound only guards against rounding.
  std::uint64_t max_sum = 0;
  for (const auto& job : jobs) max_sum += job.max;
  const std::uint64_t limit = 4 * (capacity + n_jobs) + max_sum + 16;
  for (std::uint64_t moves = 0; moves < limit; ++moves) {
    std::size_t j = n_jobs;
    for (std::size_t i = 0; i < n_jobs; ++i) {
      const Move& m = best_up(i);
      if (m.rate > 0 && (j == n_jobs || m.rate > up[j].rate)) j = i;
    }
    if (j == n_jobs) break;
    const std::uint64_t to = up[j].to, need = to - size[j];
    if (need <= free) {
      free -= need;
      size[j] = to;
      stale[j] = 1;
      give_kept[j] = 0;
      reset_reach();
      continue;
    }
    // Fund it from the donors that lose least per GPU freed, one step at a time (ties: the
    // later job gives), if the growth gains more than they lose together.
    std::vector<std::uint64_t> trial = size;
    for (std::size_t k = 0; k < n_jobs; ++k)
      if (!give_kept[k]) give[k] = give_of(k, size[k]), give_kept[k] = 1;
    trial_give = give;
    std::uint64_t got = free;
    double loss = 0;
    while (got < need) {
      std::size_t best = n_jobs;
      double best_rate = 0;
      for (std::size_t k = 0; k < n_jobs; ++k) {
        if (k == j || !trial_give[k].can) continue;
        if (best == n_jobs || trial_give[k].rate <= best_rate) best = k, best_rate = trial_give[k].rate;
      }
      if (best == n_jobs) break;
      const std::uint64_t d = trial_give[best].to;
      loss += obj.u(best, trial[best]) - obj.u(best, d);
      got += trial[best] - d;
      trial[best] = d;
      trial_give[best] = give_of(best, d);
    }
    const double gain = obj.u(j, to) - obj.u(j, size[j]);
    if (got >= need && gain > loss + 1e-12 * std::abs(gain)) {
      for (std::size_t k = 0; k < n_jobs; ++k)
        if (trial[k] != size[k]) stale[k] = 1, give_kept[k] = 0;
      size = std::move(trial);
      size[j] = to;
      stale[j] = 1;
      give_kept[j] = 0;
      free = got - need;
      reset_reach();
    } else {
      // Not worth its cost: try the job's smaller growths before giving up on it.
      reach[j] = to - 1;
      stale[j] = 1;
    }
  }
  return size;
}

}  // namespace schedlab::sched
