// Gavel's round-based mechanism (sched/gavel/round_mechanism.h) on small cases traced by hand.
#include <doctest/doctest.h>

#include <optional>
#include <stdexcept>

#include "sched/gavel/round_mechanism.h"

using namespace schedlab::sched::gavel;

namespace {

GavelJob job(std::vector<double> throughput, int scale_factor = 1) {
  GavelJob j;
  j.throughput = std::move(throughput);
  j.scale_factor = scale_factor;
  return j;
}

Allocation allocation(std::size_t types, const std::vector<std::vector<double>>& rows) {
  Allocation x(rows.size(), types);
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t k = 0; k < types; ++k) x.at(i, k) = rows[i][k];
  return x;
}

using Pick = std::vector<std::optional<std::size_t>>;

}  // namespace

TEST_CASE("Sched.Gavel.Rounds.two_rounds_by_hand") {
  // A x2, B x1. Job 0 needs 2 GPUs (so never B), job 1 runs anywhere, job 2 only on A.
  // X: job 0 (0.5, 0), job 1 (0.25, 0.5), job 2 (0.5, 0).
  ThroughputMatrix m{{{"A", 2}, {"B", 1}}, {job({1, 1}, 2), job({1, 1}), job({1, 0})}};
  const Allocation x = allocation(2, {{0.5, 0}, {0.25, 0.5}, {0.5, 0}});
  // Round 1, nothing received: priorities X x 1e9. A's queue: job 0 (5e8), job 2 (5e8, after
  // job 0: ties keep job order), job 1 (2.5e8); B's: job 1 (5e8), jobs 0 and 2 (0).
  // Job 0 takes both A GPUs, job 2 and job 1 find A full, job 1 takes B.
  RoundHistory h;
  CHECK(next_round(m, x, h) == Pick{0, 1, std::nullopt});
  // Round 2: job 0 has run a round on A, job 1 one on B. A's total 1: job 0's fraction 1,
  // priority 0.5 / 1 = 0.5; jobs 1 and 2 received none: 2.5e8 and 5e8. B: job 1 0.5 / 1.
  // A's queue: job 2, job 1, job 0: jobs 2 and 1 take A's two GPUs, job 0 finds A full;
  // on B job 1 is already placed, job 0 needs 2 GPUs, job 2 cannot run there: B stays idle
  // (Gavel's greedy does not look back).
  h.received = {1, 0, 0, 1, 0, 0};
  const std::vector<double> p = round_priorities(m, x, h);
  CHECK(p[0] == doctest::Approx(0.5));
  CHECK(p[2] == doctest::Approx(2.5e8));
  CHECK(p[3] == doctest::Approx(0.5));
  CHECK(p[4] == doctest::Approx(5e8));
  CHECK(p[5] == 0);
  CHECK(next_round(m, x, h) == Pick{std::nullopt, 0, 0});
}

TEST_CASE("Sched.Gavel.Rounds.global_queue_differs_from_per_type_queues") {
  // A x1, B x1; job 0 X (0.4, 0.6), job 1 X (0.3, 0), both run anywhere. Per-type queues:
  // A first, job 0 (4e8) over job 1 (3e8): job 0 on A; on B job 0 is placed, job 1 (priority 0
  // but able to run) takes it. Global queue: job 0 on B (6e8) comes first, then job 1 on A.
  ThroughputMatrix m{{{"A", 1}, {"B", 1}}, {job({1, 1}), job({1, 1})}};
  const Allocation x = allocation(2, {{0.4, 0.6}, {0.3, 0}});
  CHECK(next_round(m, x, RoundHistory{}) == Pick{0, 1});
  CHECK(next_round(m, x, RoundHistory{}, RoundOptions{true}) == Pick{1, 0});
}

TEST_CASE("Sched.Gavel.Rounds.deficit_breaks_ties") {
  // One type, 1 GPU, equal X and nothing received: the job with the larger deficit runs.
  ThroughputMatrix m{{{"A", 1}}, {job({1}), job({1})}};
  const Allocation x = allocation(1, {{0.5}, {0.5}});
  RoundHistory h;
  CHECK(next_round(m, x, h) == Pick{0, std::nullopt});
  h.deficit = {0, 3};
  CHECK(next_round(m, x, h) == Pick{std::nullopt, 0});
}

TEST_CASE("Sched.Gavel.Rounds.history_must_match") {
  ThroughputMatrix m{{{"A", 1}}, {job({1})}};
  const Allocation x = allocation(1, {{1}});
  RoundHistory h;
  h.received = {1, 2};
  CHECK_THROWS_AS(next_round(m, x, h), std::invalid_argument);
  h.received = {-1};
  CHECK_THROWS_AS(next_round(m, x, h), std::invalid_argument);
  CHECK_THROWS_AS(next_round(m, Allocation(2, 1), RoundHistory{}), std::invalid_argument);
}
