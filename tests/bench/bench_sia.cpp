// Sia's program (sched/sia_plan.h) at the size issue 30 asks of the solver-based policies:
// 1,000 active jobs on 4 GPU types (1,024 GPUs on 8-GPU hosts, as bench_gavel_lp.cpp), one plan
// per iteration from scratch; target <= 100 ms. Seeded: the same jobs every run.
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "engine/rng.h"
#include "sched/sia_plan.h"

namespace {
using namespace schedlab;
using namespace schedlab::sched;

// Types H100 128, A100 256, V100 320, K80 320. Seven jobs in ten elastic from one GPU to 4..64,
// their goodput speed x n^a (a in [0.5, 0.95]) on Sia's ladder (1, 2, 4, then whole hosts of 8);
// the rest rigid of 1, 2, 4 or 8. Per type speeds as Gavel's bench (one job in ten cannot use
// the K80s). A third of the jobs run, on a random configuration, with a random restart factor.
struct Instance {
  std::vector<SiaJob> jobs;
  std::vector<std::uint64_t> capacity{128, 256, 320, 320};
};

Instance instance(int n) {
  engine::Rng rng(30);
  Instance in;
  for (int i = 0; i < n; ++i) {
    const double k80 = rng.uniform_int(0, 9) == 0 ? 0.0 : 1.0;
    const double v100 = 1 + rng.uniform() * 2;
    const double a100 = v100 * (1 + rng.uniform());
    const double h100 = a100 * (1 + rng.uniform());
    const double speed[] = {h100, a100, v100, k80};
    SiaJob job;
    const bool elastic = rng.uniform_int(0, 9) < 7;
    const std::uint64_t hi = elastic ? 4u << rng.uniform_int(0, 4) : 1u << rng.uniform_int(0, 3);
    const double a = 0.5 + 0.45 * rng.uniform();
    for (std::size_t t = 0; t < 4; ++t) {
      if (speed[t] == 0) continue;
      if (!elastic) {
        job.options.push_back({t, hi, speed[t] * static_cast<double>(hi)});
        continue;
      }
      for (std::uint64_t g = 1; g <= hi; g = g < 8 ? g * 2 : g + 8)
        job.options.push_back({t, g, speed[t] * std::pow(static_cast<double>(g), a)});
    }
    if (rng.uniform_int(0, 2) == 0) {
      job.current = static_cast<int>(rng.uniform_int(0, static_cast<std::int64_t>(job.options.size()) - 1));
      job.keep = rng.uniform();
    }
    in.jobs.push_back(std::move(job));
  }
  return in;
}

// Arguments: jobs, branch-and-bound subproblems (0: the relaxation rounded).
void BM_SiaPlan(benchmark::State& state) {
  const Instance in = instance(static_cast<int>(state.range(0)));
  SiaParams params;
  params.nodes = static_cast<std::uint64_t>(state.range(1));
  SiaPlan plan;
  for (auto _ : state) {
    plan = sia_plan(in.jobs, in.capacity, params);
    benchmark::DoNotOptimize(plan);
  }
  state.counters["columns"] = static_cast<double>(plan.columns);
  state.counters["nodes"] = static_cast<double>(plan.nodes);
  state.counters["optimal"] = plan.solve == "optimal" ? 1 : 0;
}
BENCHMARK(BM_SiaPlan)
    ->Args({100, 100})
    ->Args({1000, 0})
    ->Args({1000, 10})
    ->Args({1000, 100})
    ->Args({1000, 1000})
    ->Unit(benchmark::kMillisecond);

}  // namespace
