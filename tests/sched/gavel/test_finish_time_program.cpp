// Finish-time fairness with its program kept between rounds (sched/gavel/finish_time_program.h):
// round after round, with jobs leaving and arriving, the same optimum as a solve from scratch.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "engine/rng.h"
#include "sched/gavel/finish_time_program.h"

using namespace schedlab;
using namespace schedlab::sched::gavel;

namespace {

GavelJob random_job(engine::Rng& rng) {
  GavelJob j;
  const double slow = 1 + rng.uniform() * 2, mid = slow * (1 + rng.uniform()), fast = mid * (1 + rng.uniform());
  j.throughput = {fast, mid, rng.uniform_int(0, 4) == 0 ? 0.0 : slow};
  j.scale_factor = 1 << rng.uniform_int(0, 2);
  j.remaining_work = 1000 + rng.uniform() * 50000;
  return j;
}

// Every job's fractions fit: at most 1 per job, no type over its GPUs.
void check_fits(const ThroughputMatrix& m, const Allocation& x) {
  std::vector<double> used(m.types.size(), 0.0);
  for (std::size_t i = 0; i < m.jobs.size(); ++i) {
    double sum = 0;
    for (std::size_t k = 0; k < m.types.size(); ++k) {
      CHECK(x.at(i, k) >= 0);
      if (m.jobs[i].throughput[k] == 0) CHECK(x.at(i, k) == 0);
      sum += x.at(i, k);
      used[k] += x.at(i, k) * m.jobs[i].scale_factor;
    }
    CHECK(sum <= 1 + 1e-9);
  }
  for (std::size_t k = 0; k < m.types.size(); ++k) CHECK(used[k] <= m.types[k].count + 1e-6);
}

}  // namespace

TEST_CASE("Sched.Gavel.FinishTimeProgram.rounds_reach_the_optimum_of_a_fresh_solve") {
  engine::Rng rng(7);
  ThroughputMatrix m{{{"fast", 16}, {"mid", 32}, {"slow", 40}}, {}};
  std::vector<std::uint64_t> keys;
  std::uint64_t next_key = 0;
  for (int i = 0; i < 60; ++i) m.jobs.push_back(random_job(rng)), keys.push_back(next_key++);
  FinishTimeProgram kept;
  for (int round = 0; round < 8; ++round) {
    CAPTURE(round);
    const FinishTimeResult warm = kept.solve(m, keys);
    const FinishTimeResult cold = finish_time_fairness(m);
    CHECK(warm.max_ratio == doctest::Approx(cold.max_ratio).epsilon(1e-5));
    check_fits(m, warm.allocation);
    // A round of 360 s: every job advances at its allocation, elapsed grows; 5 jobs leave
    // (from the middle, so that slots are reused) and 5 to 100 arrive (the slots grow).
    for (std::size_t i = 0; i < m.jobs.size(); ++i) {
      GavelJob& j = m.jobs[i];
      j.elapsed_s += 360;
      j.isolated_time_so_far_s += 360 * 0.5;
      j.remaining_work = std::max(1.0, j.remaining_work - 360 * warm.allocation.effective_throughput(m, i));
    }
    for (int k = 0; k < 5; ++k) {
      const auto at = static_cast<std::ptrdiff_t>(rng.uniform_int(0, static_cast<int>(m.jobs.size()) - 1));
      m.jobs.erase(m.jobs.begin() + at);
      keys.erase(keys.begin() + at);
    }
    const int arrivals = round == 4 ? 100 : 5;
    for (int k = 0; k < arrivals; ++k) m.jobs.push_back(random_job(rng)), keys.push_back(next_key++);
  }
  CHECK(kept.rebuilds() == 2);  // the first solve, and the 100 arrivals beyond 128 slots
  CHECK(kept.slots() >= m.jobs.size());
}

TEST_CASE("Sched.Gavel.FinishTimeProgram.new_gpu_types_rebuild_and_bad_keys_throw") {
  engine::Rng rng(8);
  ThroughputMatrix m{{{"fast", 4}, {"mid", 8}, {"slow", 8}}, {}};
  for (int i = 0; i < 6; ++i) m.jobs.push_back(random_job(rng));
  FinishTimeProgram kept;
  kept.solve(m, {1, 2, 3, 4, 5, 6});
  m.types[2].count = 4;  // a GPU type changed: a new program
  const auto r = kept.solve(m, {1, 2, 3, 4, 5, 6});
  CHECK(kept.rebuilds() == 2);
  CHECK(r.max_ratio == doctest::Approx(finish_time_fairness(m).max_ratio).epsilon(1e-5));
  CHECK_THROWS_AS(kept.solve(m, {1, 2, 3}), std::invalid_argument);
  CHECK_THROWS_AS(kept.solve(m, {1, 1, 3, 4, 5, 6}), std::invalid_argument);
  CHECK(kept.solve(ThroughputMatrix{m.types, {}}, {}).allocation.jobs() == 0);
}
