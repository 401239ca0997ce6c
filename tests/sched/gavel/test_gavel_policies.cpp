// Gavel's max-min fairness and finish-time fairness (sched/gavel/) on cases worked out by hand
// in the comments, the invariants on a random matrix, and bad matrices.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "../../support/input_errors.h"
#include "engine/rng.h"
#include "sched/gavel/finish_time_fairness.h"
#include "sched/gavel/max_min_fairness.h"

using namespace schedlab;
using namespace schedlab::sched::gavel;
using schedlab::testing::input_error_of;
using schedlab::testing::says;

namespace {

double between(engine::Rng& rng, double lo, double hi) { return lo + (hi - lo) * rng.uniform(); }

GavelJob job(std::vector<double> throughput, int scale_factor = 1, double weight = 1) {
  GavelJob j;
  j.throughput = std::move(throughput);
  j.scale_factor = scale_factor;
  j.weight = weight;
  return j;
}

GavelJob ftf_job(std::vector<double> throughput, double elapsed_s, double remaining) {
  GavelJob j = job(std::move(throughput));
  j.elapsed_s = elapsed_s;
  j.remaining_work = remaining;
  return j;
}

// Every allocation must fit: a job's fractions sum to at most 1, a type's GPUs are not
// overcommitted, nothing on a type where the job cannot run.
void check_fits(const ThroughputMatrix& m, const Allocation& x) {
  REQUIRE(x.jobs() == m.jobs.size());
  std::vector<double> used(m.types.size(), 0.0);
  for (std::size_t i = 0; i < m.jobs.size(); ++i) {
    double row = 0;
    for (std::size_t k = 0; k < m.types.size(); ++k) {
      CHECK(x.at(i, k) >= 0);
      if (m.jobs[i].throughput[k] == 0 || m.types[k].count < m.jobs[i].scale_factor) CHECK(x.at(i, k) == 0);
      row += x.at(i, k);
      used[k] += x.at(i, k) * m.jobs[i].scale_factor;
    }
    CHECK(row <= 1 + 1e-9);
  }
  for (std::size_t k = 0; k < m.types.size(); ++k) CHECK(used[k] <= m.types[k].count + 1e-6);
}

}  // namespace

TEST_CASE("Sched.Gavel.MaxMin.heterogeneity_two_jobs_two_types") {
  // V100 x1, K80 x1. Job 0 runs 4/s on a V100 and 1/s on a K80; job 1 1/s on either.
  // Proportional throughputs (time split by GPU count, 1:1): job 0 (4 + 1) / 2 = 2.5, job 1 1.
  // Normalised coefficients c = throughput / proportional: job 0 (1.6, 0.4), job 1 (1, 1).
  // Job 1's normalised throughput is x1V + x1K <= 1 whatever it gets, so the least is at most
  // 1; job 0 reaches 1 with x0V >= 0.5 (1.6 x 0.5 + 0.4 x 0.5 = 1). Optimum 1. Of the
  // allocations that reach it, the leftover stage maximises 1.6 x0V + 0.4 x0K + x1V + x1K:
  // job 0 all on the V100 (1.6), job 1 all on the K80 (1).
  ThroughputMatrix m{{{"V100", 1}, {"K80", 1}}, {job({4, 1}), job({1, 1})}};
  const MaxMinResult r = max_min_fairness(m, MaxMinOptions{true});
  CHECK(r.min_normalised_throughput == doctest::Approx(1));
  check_fits(m, r.allocation);
  CHECK(r.allocation.at(0, 0) == doctest::Approx(1));
  CHECK(r.allocation.at(0, 1) == doctest::Approx(0));
  CHECK(r.allocation.at(1, 0) == doctest::Approx(0));
  CHECK(r.allocation.at(1, 1) == doctest::Approx(1));
  // Without the leftover stage (the default) the least share is the same, the vertex is the
  // solver's.
  const MaxMinResult bare = max_min_fairness(m);
  CHECK(bare.min_normalised_throughput == doctest::Approx(1));
  check_fits(m, bare.allocation);
  CHECK(1.6 * bare.allocation.at(0, 0) + 0.4 * bare.allocation.at(0, 1) >= 1 - 1e-9);
}

TEST_CASE("Sched.Gavel.MaxMin.symmetric_speedups_split_evenly") {
  // V100 x1, K80 x1; job 0 (4, 1), job 1 (2, 1): proportional 2.5 and 1.5, c0 = (1.6, 0.4),
  // c1 = (4/3, 2/3). With both GPUs and both jobs busy all the time, x0V = x1K = t and
  // x0K = x1V = 1 - t: z0 = 0.4 + 1.2 t, z1 = 4/3 - 2/3 t, equal at t = 0.5 where both are 1;
  // any other t lowers one of them. The split is even and unique.
  ThroughputMatrix m{{{"V100", 1}, {"K80", 1}}, {job({4, 1}), job({2, 1})}};
  const MaxMinResult r = max_min_fairness(m);
  CHECK(r.min_normalised_throughput == doctest::Approx(1));
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t k = 0; k < 2; ++k) CHECK(r.allocation.at(i, k) == doctest::Approx(0.5));
}

TEST_CASE("Sched.Gavel.MaxMin.job_that_cannot_run_on_a_type") {
  // A x1, B x1. Job 0 runs only on A (2/s), job 1 on both (1/s). Proportional: job 0
  // (2 + 0) / 2 = 1, job 1 1; c0 = (2, -), c1 = (1, 1). Job 1 is at most 1, so the least is 1:
  // job 0 needs x0A >= 0.5. The leftover stage then gives A to job 0 and B to job 1 (sum 3).
  ThroughputMatrix m{{{"A", 1}, {"B", 1}}, {job({2, 0}), job({1, 1})}};
  const MaxMinResult r = max_min_fairness(m, MaxMinOptions{true});
  CHECK(r.min_normalised_throughput == doctest::Approx(1));
  check_fits(m, r.allocation);
  CHECK(r.allocation.at(0, 0) == doctest::Approx(1));
  CHECK(r.allocation.at(0, 1) == 0);
  CHECK(r.allocation.at(1, 1) == doctest::Approx(1));
}

TEST_CASE("Sched.Gavel.MaxMin.weights") {
  // One type, 1 GPU, two identical jobs with weights 1 and 3. Gavel divides by the weight:
  // max min(x0 / 1, x1 / 3) with x0 + x1 <= 1 gives x1 = 3 x0, x0 = 0.25, x1 = 0.75.
  ThroughputMatrix m{{{"V100", 1}}, {job({1}, 1, 1), job({1}, 1, 3)}};
  const MaxMinResult r = max_min_fairness(m);
  CHECK(r.min_normalised_throughput == doctest::Approx(0.25));
  CHECK(r.allocation.at(0, 0) == doctest::Approx(0.25));
  CHECK(r.allocation.at(1, 0) == doctest::Approx(0.75));
}

TEST_CASE("Sched.Gavel.MaxMin.scale_factors_share_gpu_time") {
  // One type, 2 GPUs; job 0 needs 2 GPUs, job 1 one, both 1/s. c = throughput x scale_factor:
  // 2 and 1. GPUs: 2 x0 + x1 <= 2. max min(2 x0, x1): x1 = 1, x0 = 0.5, least 1: each job
  // gets one GPU's worth of time.
  ThroughputMatrix m{{{"V100", 2}}, {job({1}, 2), job({1}, 1)}};
  const MaxMinResult r = max_min_fairness(m);
  CHECK(r.min_normalised_throughput == doctest::Approx(1));
  CHECK(r.allocation.at(0, 0) == doctest::Approx(0.5));
  CHECK(r.allocation.at(1, 0) == doctest::Approx(1));
}

TEST_CASE("Sched.Gavel.MaxMin.random_matrix_fits_and_beats_the_isolated_share") {
  engine::Rng rng(7);
  ThroughputMatrix m{{{"A", 8}, {"B", 6}, {"C", 4}}, {}};
  for (int i = 0; i < 60; ++i) {
    // One draw per statement: the order of a call's arguments is unspecified.
    GavelJob j = job({between(rng, 0.5, 4), between(rng, 0.2, 2), rng.uniform_int(0, 3) == 0 ? 0.0 : 1.0});
    j.scale_factor = 1 << static_cast<int>(rng.uniform_int(0, 2));
    j.weight = rng.uniform_int(0, 4) == 0 ? 2.0 : 1.0;
    m.jobs.push_back(j);
  }
  const MaxMinResult r = max_min_fairness(m);
  check_fits(m, r.allocation);
  const std::vector<double> prop = proportional_throughputs(m);
  auto normalised = [&](const Allocation& x, std::size_t i) {
    return x.effective_throughput(m, i) * m.jobs[i].scale_factor / (m.jobs[i].weight * prop[i]);
  };
  // Every job is at or above the least share the program reports...
  for (std::size_t i = 0; i < m.jobs.size(); ++i)
    CHECK(normalised(r.allocation, i) >= r.min_normalised_throughput * (1 - 1e-6));
  // ...which no feasible allocation can beat: the isolated share is one, so it is a floor.
  const Allocation iso = isolated_allocation(m);
  double iso_least = 1e300;
  for (std::size_t i = 0; i < m.jobs.size(); ++i) iso_least = std::min(iso_least, normalised(iso, i));
  CHECK(r.min_normalised_throughput >= iso_least * (1 - 1e-9));
}

TEST_CASE("Sched.Gavel.MaxMin.identical_jobs_share_a_row") {
  // 90 jobs drawn from 6 kinds (throughputs, scale factor, weight): grouped into 6 rows, the
  // least share is the one that 90 rows give, and both allocations fit.
  engine::Rng rng(5);
  ThroughputMatrix m{{{"A", 8}, {"B", 6}, {"C", 4}}, {}};
  std::vector<GavelJob> kinds;
  for (int t = 0; t < 6; ++t) {
    GavelJob j = job({between(rng, 0.5, 4), between(rng, 0.2, 2), t % 3 == 0 ? 0.0 : 1.0});
    j.scale_factor = 1 << (t % 3);
    j.weight = t == 5 ? 2.0 : 1.0;
    kinds.push_back(j);
  }
  for (int i = 0; i < 90; ++i) m.jobs.push_back(kinds[static_cast<std::size_t>(rng.uniform_int(0, 5))]);
  MaxMinOptions one_row_each;
  one_row_each.group_identical_jobs = false;
  const MaxMinResult grouped = max_min_fairness(m), single = max_min_fairness(m, one_row_each);
  CHECK(grouped.min_normalised_throughput == doctest::Approx(single.min_normalised_throughput).epsilon(1e-9));
  check_fits(m, grouped.allocation);
  check_fits(m, single.allocation);
  for (bool fill : {false, true}) {
    MaxMinOptions a, b;
    a.fill_leftover = b.fill_leftover = fill;
    b.group_identical_jobs = false;
    // The sum of normalised throughputs: what the leftover program maximises.
    const std::vector<double> prop = proportional_throughputs(m);
    double sum_a = 0, sum_b = 0;
    const Allocation xa = max_min_fairness(m, a).allocation, xb = max_min_fairness(m, b).allocation;
    for (std::size_t i = 0; i < m.jobs.size(); ++i) {
      const double per = m.jobs[i].scale_factor / (m.jobs[i].weight * prop[i]);
      sum_a += xa.effective_throughput(m, i) * per;
      sum_b += xb.effective_throughput(m, i) * per;
    }
    // With the leftover program, that total is the same too.
    if (fill) CHECK(sum_a == doctest::Approx(sum_b).epsilon(1e-6));
  }
}

TEST_CASE("Sched.Gavel.FinishTime.waiting_job_gets_more") {
  // One type, 1 GPU, both jobs 1/s. Isolated share: 1/2 each, isolated throughput 0.5.
  // Job 0 has waited 20 s and has 10 left: in isolation it would take 10 / 0.5 = 20 s, so
  // rho0 = (20 + 10 / x0) / 20 = 1 + 0.5 / x0. Job 1 is new with 30 left: 60 s in isolation,
  // rho1 = (30 / x1) / 60 = 0.5 / x1. With x1 = 1 - x0 the two are equal where
  // x0 (1 - x0) + 0.5 (1 - x0) = 0.5 x0, i.e. x0^2 = 0.5: x0 = 0.70711, rho = 1 + 1/sqrt(2).
  ThroughputMatrix m{{{"V100", 1}}, {ftf_job({1}, 20, 10), ftf_job({1}, 0, 30)}};
  const FinishTimeResult r = finish_time_fairness(m);
  CHECK(r.max_ratio == doctest::Approx(1 + std::sqrt(0.5)).epsilon(1e-3));
  CHECK(r.allocation.at(0, 0) == doctest::Approx(std::sqrt(0.5)).epsilon(1e-3));
  CHECK(r.allocation.at(1, 0) == doctest::Approx(1 - std::sqrt(0.5)).epsilon(1e-3));
  CHECK(r.lp_solves >= 2);
}

TEST_CASE("Sched.Gavel.FinishTime.each_job_alone_on_its_type") {
  // A x1, B x1; job 0 runs only on A at 1/s, job 1 only on B at 2/s, 10 left each. The
  // isolated share is half of each type: throughputs 0.5 and 1, isolated finish 20 s and
  // 10 s. The start (the isolated share) has rho = 1 for both. At rho = 1 they need 0.5 and
  // 1 per second, and can have 1 and 2: lambda = 2, with each job alone on its type, where
  // rho0 = 10 / 20 = 0.5 and rho1 = 5 / 10 = 0.5. At rho = 0.5 lambda is 1: no lower rho is
  // feasible (each job already has all of its time on its fastest type). Two programs.
  ThroughputMatrix m{{{"A", 1}, {"B", 1}}, {ftf_job({1, 0}, 0, 10), ftf_job({0, 2}, 0, 10)}};
  const FinishTimeResult r = finish_time_fairness(m);
  CHECK(r.max_ratio == doctest::Approx(0.5));
  CHECK(r.allocation.at(0, 0) == doctest::Approx(1));
  CHECK(r.allocation.at(1, 1) == doctest::Approx(1));
  CHECK(r.lp_solves == 1);  // 0.5 is also the lower bound (each job alone on its fastest type)
  FinishTimeOptions fill;
  fill.fill_leftover = true;
  CHECK(finish_time_fairness(m, fill).lp_solves == 2);  // and the leftover program
}

TEST_CASE("Sched.Gavel.FinishTime.long_waiter_converges_in_few_programs") {
  // One type, 1 GPU, both 1/s with 10 left, isolated share 1/2: isolated finish 20 s each.
  // Job 0 has waited 100 s: rho0 = (100 + 10 / x0) / 20 = 5 + 0.5 / x0; job 1 rho1 = 0.5 / x1.
  // Equal with x1 = 1 - x0: (5 + 0.5 / x)(1 - x) = 0.5, i.e. 5 x^2 - 4 x - 0.5 = 0,
  // x0 = (4 + sqrt(26)) / 10 = 0.90990, rho = 5 + 0.5 / x0 = 5.54951. The plain fixed-point
  // step here is rho' = 5 + (rho - 5) / lambda with lambda near 1 (slivers): the bisection
  // safeguard keeps the number of programs small.
  ThroughputMatrix m{{{"V100", 1}}, {ftf_job({1}, 100, 10), ftf_job({1}, 0, 10)}};
  const FinishTimeResult r = finish_time_fairness(m);
  const double x0 = (4 + std::sqrt(26.0)) / 10;
  CHECK(r.max_ratio == doctest::Approx(5 + 0.5 / x0).epsilon(1e-5));
  CHECK(r.allocation.at(0, 0) == doctest::Approx(x0).epsilon(1e-4));
  CHECK(r.lp_solves <= 40);
}

TEST_CASE("Sched.Gavel.FinishTime.leftover_goes_to_the_most_gain") {
  // A x2; job 0 (1/s, 10 left) has waited 10 s, job 1 (1/s, 10 left) is new. Isolated: one
  // GPU each (x = 2 / 2 = 1), finish 10 s; rho0 = (10 + 10 / x0) / 10 >= 2 at x0 = 1, rho1 =
  // (10 / x1) / 10 = 1 / x1. The least largest ratio is 2 (job 0 at full time); job 1 only
  // needs x1 >= 0.5. The leftover program raises job 1 to its full time.
  ThroughputMatrix m{{{"A", 2}}, {ftf_job({1}, 10, 10), ftf_job({1}, 0, 10)}};
  FinishTimeOptions fill;
  fill.fill_leftover = true;
  const FinishTimeResult r = finish_time_fairness(m, fill);
  CHECK(r.max_ratio == doctest::Approx(2));
  CHECK(r.allocation.at(0, 0) == doctest::Approx(1));
  CHECK(r.allocation.at(1, 0) == doctest::Approx(1));
}

TEST_CASE("Sched.Gavel.FinishTime.random_matrix_fits_and_beats_the_isolated_share") {
  engine::Rng rng(11);
  ThroughputMatrix m{{{"A", 8}, {"B", 6}, {"C", 4}, {"D", 2}}, {}};
  for (int i = 0; i < 60; ++i) {
    GavelJob j = ftf_job({between(rng, 0.5, 4), between(rng, 0.2, 2), between(rng, 0, 1), 0.3}, 0, 0);
    j.elapsed_s = between(rng, 0, 3600);
    j.remaining_work = between(rng, 100, 20000);
    j.scale_factor = 1 << static_cast<int>(rng.uniform_int(0, 1));
    j.isolated_time_so_far_s = j.elapsed_s * between(rng, 0, 1);
    m.jobs.push_back(j);
  }
  const FinishTimeResult r = finish_time_fairness(m);
  check_fits(m, r.allocation);
  const std::vector<double> iso = isolated_throughputs(m);
  double iso_worst = 0;
  for (std::size_t i = 0; i < m.jobs.size(); ++i) {
    CHECK(finish_time_ratio(m, r.allocation, i, iso[i]) <= r.max_ratio * (1 + 1e-9));
    iso_worst = std::max(iso_worst, finish_time_ratio(m, isolated_allocation(m), i, iso[i]));
  }
  CHECK(r.max_ratio <= iso_worst * (1 + 1e-9));
  CHECK(r.max_ratio > 0);
}

TEST_CASE("Sched.Gavel.empty_job_list") {
  ThroughputMatrix m{{{"A", 4}}, {}};
  CHECK(max_min_fairness(m).allocation.jobs() == 0);
  CHECK(finish_time_fairness(m).allocation.jobs() == 0);
}

TEST_CASE("Sched.Gavel.bad_matrices") {
  struct Case {
    const char* name;
    ThroughputMatrix m;
    bool finish_time;
    const char* says;
  };
  GavelJob named = job({-1, 1});
  named.name = "j7";
  const Case cases[] = {
      {"negative throughput", {{{"A", 1}, {"B", 1}}, {named}}, false, "job 'j7': throughput -1 on GPU type 'A' must be"},
      {"zero everywhere", {{{"A", 1}, {"B", 1}}, {job({0, 0})}}, false, "job 0: throughput is 0 on every GPU type"},
      {"scale factor 0", {{{"A", 1}}, {job({1}, 0)}}, false, "scale factor 0 (GPUs it needs) must be at least 1"},
      {"weight 0", {{{"A", 1}}, {job({1}, 1, 0)}}, false, "priority weight 0 must be above 0"},
      {"too big for its types", {{{"A", 2}, {"B", 8}}, {job({1, 0}, 4)}}, false, "needs 4 GPUs at once, but the GPU types it runs on have at most 2"},
      {"row length", {{{"A", 1}, {"B", 1}}, {job({1})}}, false, "1 throughputs for 2 GPU types"},
      {"NaN", {{{"A", 1}}, {job({std::nan("")})}}, false, "must be a number >= 0"},
      {"no types", {{}, {}}, false, "at least one GPU type"},
      {"negative count", {{{"A", -1}}, {}}, false, "GPU type 'A': GPU count -1 is negative"},
      {"no remaining work", {{{"A", 1}}, {ftf_job({1}, 0, 0)}}, true, "remaining work 0 must be above 0"},
      {"negative elapsed", {{{"A", 1}}, {ftf_job({1}, -5, 10)}}, true, "elapsed time -5 s must be >= 0"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const util::InputError e = input_error_of([&] {
      if (c.finish_time)
        finish_time_fairness(c.m);
      else
        max_min_fairness(c.m);
    });
    CHECK_MESSAGE(says(e, c.says), e.what());
    CHECK(e.file().empty());  // the caller adds where the values came from
  }
  // Finish-time fields are not checked for max-min fairness.
  CHECK_NOTHROW(max_min_fairness(ThroughputMatrix{{{"A", 1}}, {job({1})}}));
}
