// The crash basis of finish-time fairness's cold first program (sched/gavel/finish_time_crash.h):
// the per-job choice of GPU types worked out by hand, and the whole program on fresh jobs, where
// the crash must reach the same optimum as the slack basis in far fewer pivots.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "engine/rng.h"
#include "sched/gavel/finish_time_crash.h"
#include "sched/gavel/finish_time_fairness.h"

using namespace schedlab;
using namespace schedlab::sched::gavel;

namespace {

bool same(const TypeChoice& a, const TypeChoice& b) { return a.first == b.first && a.second == b.second; }

// 400 jobs that all just arrived (nothing elapsed: the ratios compete, as at a simulation's
// start) on four types with per-job speedups, scale factors 1 to 8.
ThroughputMatrix fresh_jobs(std::uint64_t seed) {
  engine::Rng rng(seed);
  ThroughputMatrix m{{{"H100", 48}, {"A100", 96}, {"V100", 128}, {"K80", 128}}, {}};
  const double scale_weights[] = {60, 20, 15, 5};
  for (int i = 0; i < 400; ++i) {
    GavelJob j;
    const double v100 = 1 + rng.uniform() * 2, a100 = v100 * (1 + rng.uniform()), h100 = a100 * (1 + rng.uniform());
    j.throughput = {h100, a100, v100, rng.uniform_int(0, 9) == 0 ? 0.0 : 1.0};
    j.scale_factor = 1 << rng.weighted_index(scale_weights, 4);
    j.remaining_work = 1000 + rng.uniform() * 100000;
    m.jobs.push_back(j);
  }
  return m;
}

}  // namespace

TEST_CASE("Sched.Gavel.FinishTimeCrash.choose_types_by_hand") {
  // Job: 4/s on type 0, 2/s on type 1, one GPU. Costs are price x GPUs x time.
  const std::vector<double> speed{4, 2};
  const std::vector<bool> both{true, true};
  struct Case {
    double throughput;
    std::vector<double> prices;
    TypeChoice want;
  };
  const Case cases[] = {
      // 1/s: type 0 for 1/4 of the time costs 0.25, type 1 for 1/2 costs 0.5.
      {1, {1, 1}, {0, std::nullopt}},
      // Type 0 three times dearer: 0.75 against 0.5.
      {1, {3, 1}, {1, std::nullopt}},
      // 3/s: type 0 alone for 3/4 (0.75), or half the time on each (x_0 = (3 - 2) / (4 - 2)):
      // 0.5 + 0.5 = 1 at prices (1, 1): type 0 alone ...
      {3, {1, 1}, {0, std::nullopt}},
      // ... but 0.5 + 0.05 = 0.55 when type 1 costs 0.1: the pair, the slower type first.
      {3, {1, 0.1}, {1, 0}},
      // 5/s: no type and no pair reaches it: the fastest alone.
      {5, {1, 1}, {0, std::nullopt}},
      // Equal costs (0.5 each): the lower index.
      {1, {2, 1}, {0, std::nullopt}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.throughput);
    CHECK(same(choose_types(speed, both, 1, c.throughput, c.prices), c.want));
  }
  // Type 0 not allowed: type 1 alone even where type 0 would be cheaper; 3/s out of its reach.
  CHECK(same(choose_types(speed, {false, true}, 1, 1, {0.1, 1}), TypeChoice{1, std::nullopt}));
  CHECK(same(choose_types(speed, {false, true}, 1, 3, {0.1, 1}), TypeChoice{1, std::nullopt}));
  // Scale factors multiply every cost alike: the same choice.
  CHECK(same(choose_types(speed, both, 8, 3, {1, 0.1}), TypeChoice{1, 0}));
}

// Every allocation must fit: a job's fractions sum to at most 1, a type's GPUs are not
// overcommitted.
void check_fits(const ThroughputMatrix& m, const Allocation& x) {
  std::vector<double> used(m.types.size(), 0.0);
  for (std::size_t i = 0; i < m.jobs.size(); ++i) {
    double row = 0;
    for (std::size_t k = 0; k < m.types.size(); ++k) {
      row += x.at(i, k);
      used[k] += x.at(i, k) * m.jobs[i].scale_factor;
    }
    CHECK(row <= 1 + 1e-9);
  }
  for (std::size_t k = 0; k < m.types.size(); ++k) CHECK(used[k] <= m.types[k].count + 1e-6);
}

// Seeds 31-34 and 37 leave the program's level below its cap (L: the least best / need), so the
// types bind, the sample has prices, and the optimum is one allocation. In 30, 35 and 36 every
// job can reach the cap: no prices; the jobs are placed first fit at the cap, an optimum as it
// stands, but another one than the slack basis's (that optimum is a whole face: any allocation
// that gives every job the cap).
TEST_CASE("Sched.Gavel.FinishTimeCrash.same_optimum_in_fewer_pivots") {
  for (std::uint64_t seed : {30u, 31u, 32u, 33u, 34u, 35u, 36u, 37u}) {
    CAPTURE(seed);
    const ThroughputMatrix m = fresh_jobs(seed);
    FinishTimeOptions slack;
    slack.crash = false;
    const FinishTimeResult cold = finish_time_fairness(m, slack);
    const FinishTimeResult crashed = finish_time_fairness(m);
    CHECK(crashed.max_ratio == doctest::Approx(cold.max_ratio).epsilon(1e-9));
    check_fits(m, crashed.allocation);
    const bool at_cap = seed == 30 || seed == 35 || seed == 36;
    if (!at_cap) {
      double largest_difference = 0;
      for (std::size_t i = 0; i < m.jobs.size(); ++i)
        for (std::size_t k = 0; k < m.types.size(); ++k)
          largest_difference =
              std::max(largest_difference, std::abs(crashed.allocation.at(i, k) - cold.allocation.at(i, k)));
      CHECK(largest_difference < 1e-6);
    }
    CHECK(crashed.pivots * 3 < cold.pivots);  // 103-267 pivots against 795-1,110
  }
}
