// Gavel's LP-based policies at the size issue 30 asks for: 1,000 active jobs on 4 GPU types
// (1,024 GPUs), one allocation per iteration (a round's solve, from scratch); target
// <= 100 ms. Also the round mechanism's pick at that size. Seeded: same matrix every run.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/rng.h"
#include "sched/gavel/finish_time_fairness.h"
#include "sched/gavel/finish_time_program.h"
#include "sched/gavel/max_min_fairness.h"
#include "sched/gavel/round_mechanism.h"

namespace {
using namespace schedlab;
using namespace schedlab::sched::gavel;

// Four generations with per-job speedups that differ (the heterogeneity Gavel exploits): a
// job's throughput on the slowest type is 1, the others 1 to 4x faster by job; one job in
// ten cannot run on the slowest (memory); scale factors 1, 2, 4, 8 (60/20/15/5 %). With
// `models` > 0 the throughputs come from that many models (Gavel's matrix is job type x GPU
// type: jobs of one model and scale factor are alike); with 0 every job has its own.
ThroughputMatrix matrix(int jobs, int models, std::uint64_t seed = 30) {
  engine::Rng rng(seed);
  ThroughputMatrix m{{{"H100", 128}, {"A100", 256}, {"V100", 320}, {"K80", 320}}, {}};
  auto speeds = [&rng] {
    const double k80 = rng.uniform_int(0, 9) == 0 ? 0.0 : 1.0;
    const double v100 = 1 + rng.uniform() * 2;
    const double a100 = v100 * (1 + rng.uniform());
    const double h100 = a100 * (1 + rng.uniform());
    return std::vector<double>{h100, a100, v100, k80};
  };
  std::vector<std::vector<double>> table;
  for (int k = 0; k < models; ++k) table.push_back(speeds());
  const double sf_weights[] = {60, 20, 15, 5};
  for (int i = 0; i < jobs; ++i) {
    GavelJob j;
    j.throughput = models > 0 ? table[static_cast<std::size_t>(rng.uniform_int(0, models - 1))] : speeds();
    j.scale_factor = 1 << rng.weighted_index(sf_weights, 4);
    j.weight = rng.uniform_int(0, 4) == 0 ? 2.0 : 1.0;
    j.elapsed_s = rng.uniform() * 36000;
    j.remaining_work = 1000 + rng.uniform() * 100000;
    j.isolated_time_so_far_s = j.elapsed_s * rng.uniform();
    m.jobs.push_back(std::move(j));
  }
  return m;
}

// Arguments: jobs, models (0: every job its own throughputs), and 1 to add the leftover
// program.
void BM_GavelMaxMinFairness(benchmark::State& state) {
  const ThroughputMatrix m = matrix(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  MaxMinOptions options;
  options.fill_leftover = state.range(2) != 0;
  for (auto _ : state) benchmark::DoNotOptimize(max_min_fairness(m, options));
}
BENCHMARK(BM_GavelMaxMinFairness)
    ->Args({100, 0, 0})
    ->Args({1000, 0, 0})
    ->Args({1000, 0, 1})
    ->Args({1000, 26, 0})
    ->Args({1000, 26, 1})
    ->Unit(benchmark::kMillisecond);

// Arguments: jobs, 1 for jobs that have all just arrived (nothing elapsed: the jobs compete
// and the bisection runs) or 0 for the matrix's elapsed times (one job that waited long sets
// the ratio and the lower bound is reached at once), 1 to add the leftover program, and the
// matrix's seed (30; in 35 every fresh job can reach the first program's cap, so it is solved
// from the slack basis, not crashed: finish_time_crash.h).
void BM_GavelFinishTimeFairness(benchmark::State& state) {
  ThroughputMatrix m = matrix(static_cast<int>(state.range(0)), 0, static_cast<std::uint64_t>(state.range(3)));
  if (state.range(1) != 0)
    for (GavelJob& j : m.jobs) j.elapsed_s = j.isolated_time_so_far_s = 0;
  FinishTimeOptions options;
  options.fill_leftover = state.range(2) != 0;
  int solves = 0;
  for (auto _ : state) {
    const FinishTimeResult r = finish_time_fairness(m, options);
    solves = r.lp_solves;
    benchmark::DoNotOptimize(r);
  }
  state.counters["lp_solves"] = solves;
}
BENCHMARK(BM_GavelFinishTimeFairness)
    ->Args({100, 1, 0, 30})
    ->Args({1000, 1, 0, 30})
    ->Args({1000, 0, 0, 30})
    ->Args({1000, 1, 1, 30})
    ->Args({1000, 1, 0, 35})
    ->Unit(benchmark::kMillisecond);

// Rounds of the kept program (finish_time_program.h), as the scheduler part runs it: each
// iteration is one round's allocation after a 6-minute round in which every job advanced and
// `replaced` of the 1,000 jobs left and as many arrived (argument 1: 1 for jobs that all
// arrived at once, as in the worst case above). The first, cold solve is outside the timing.
void BM_GavelFinishTimeKept(benchmark::State& state) {
  ThroughputMatrix m = matrix(1000, 0);
  if (state.range(1) != 0)
    for (GavelJob& j : m.jobs) j.elapsed_s = j.isolated_time_so_far_s = 0;
  const ThroughputMatrix arrivals = matrix(1000, 0);
  std::vector<std::uint64_t> keys;
  for (std::uint64_t i = 0; i < m.jobs.size(); ++i) keys.push_back(i);
  std::uint64_t next_key = m.jobs.size();
  FinishTimeProgram kept;
  FinishTimeResult r = kept.solve(m, keys);
  const auto replaced = static_cast<std::size_t>(state.range(0));
  int solves = 0;
  std::size_t round = 0;
  for (auto _ : state) {
    state.PauseTiming();
    for (std::size_t i = 0; i < m.jobs.size(); ++i) {
      GavelJob& j = m.jobs[i];
      j.elapsed_s += 360;
      j.isolated_time_so_far_s += 360 * 0.5;
      j.remaining_work = std::max(1.0, j.remaining_work - 360 * r.allocation.effective_throughput(m, i));
    }
    for (std::size_t k = 0; k < replaced; ++k) {
      const std::size_t at = (round * 37 + k * 101) % m.jobs.size();
      m.jobs[at] = arrivals.jobs[(round * replaced + k) % arrivals.jobs.size()];
      m.jobs[at].elapsed_s = m.jobs[at].isolated_time_so_far_s = 0;
      keys[at] = next_key++;
    }
    ++round;
    state.ResumeTiming();
    r = kept.solve(m, keys);
    solves += r.lp_solves;
  }
  state.counters["lp_solves_per_round"] = static_cast<double>(solves) / static_cast<double>(round);
}
BENCHMARK(BM_GavelFinishTimeKept)->Args({10, 1})->Args({10, 0})->Args({100, 1})->Unit(benchmark::kMillisecond);

void BM_GavelNextRound(benchmark::State& state) {
  const ThroughputMatrix m = matrix(1000, 0);
  const Allocation x = max_min_fairness(m).allocation;
  RoundHistory h;
  engine::Rng rng(31);
  for (std::size_t c = 0; c < m.jobs.size() * m.types.size(); ++c) h.received.push_back(rng.uniform() * 3600);
  for (auto _ : state) benchmark::DoNotOptimize(next_round(m, x, h));
}
BENCHMARK(BM_GavelNextRound)->Unit(benchmark::kMillisecond);

}  // namespace
