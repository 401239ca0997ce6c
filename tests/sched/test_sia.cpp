// Sia's choice of configurations (sched/sia_plan.h), worked out by hand: a job's term on a
// configuration is lambda_n + sign(p) g^p (+ lambda_a on a running job's own), g its goodput over
// its least one (x that one's GPUs), a running job's other configurations discounted by `keep`.
// p = -0.5, lambda_n = 1.1, lambda_a = 0 unless said. Then invariants and the optimum against
// brute force on seeded small instances.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include "engine/rng.h"
#include "sched/sia_plan.h"

using namespace schedlab::sched;

namespace {
SiaParams params(double p = -0.5, double lambda_a = 0, std::uint64_t nodes = 100) {
  return SiaParams{p, 1.1, lambda_a, nodes};
}

// A job's term on option k, as the header states it.
double term(const SiaJob& job, std::size_t k, const SiaParams& sp) {
  double g = sia_normalised(job, k);
  const bool current = job.current == static_cast<int>(k);
  if (!current && job.current >= 0) g *= job.keep;
  return sp.lambda_n + (sp.p < 0 ? -std::pow(g, sp.p) : std::pow(g, sp.p)) + (current ? sp.lambda_a : 0);
}

// The program's objective for a choice.
double objective(const std::vector<SiaJob>& jobs, const std::vector<int>& choice, const SiaParams& sp) {
  double sum = 0;
  for (std::size_t j = 0; j < jobs.size(); ++j)
    if (choice[j] >= 0) sum += term(jobs[j], static_cast<std::size_t>(choice[j]), sp);
  return sum;
}

// Each type's GPUs chosen at most its capacity, each choice one of the job's options.
bool fits(const std::vector<SiaJob>& jobs, const std::vector<int>& choice, std::vector<std::uint64_t> left) {
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (choice[j] < 0) continue;
    if (static_cast<std::size_t>(choice[j]) >= jobs[j].options.size()) return false;
    const SiaOption& o = jobs[j].options[static_cast<std::size_t>(choice[j])];
    if (o.gpus > left[o.type]) return false;
    left[o.type] -= o.gpus;
  }
  return true;
}
}  // namespace

TEST_CASE("Sched.Sia.normalised_goodput") {
  // An elastic job from one GPU: its one-GPU goodput on the slowest type is worth 1.
  SiaJob elastic{{{0, 1, 2.0}, {0, 2, 3.6}, {1, 1, 5.0}}, -1, 1};
  CHECK(sia_normalised(elastic, 0) == doctest::Approx(1));
  CHECK(sia_normalised(elastic, 1) == doctest::Approx(1.8));
  CHECK(sia_normalised(elastic, 2) == doctest::Approx(2.5));
  // A rigid job of 4 is worth 4 on its slowest type (the artifact's rigid normalisation).
  SiaJob rigid{{{0, 4, 2.0}, {1, 4, 6.0}}, -1, 1};
  CHECK(sia_normalised(rigid, 0) == doctest::Approx(4));
  CHECK(sia_normalised(rigid, 1) == doctest::Approx(12));
}

TEST_CASE("Sched.Sia.plans_by_hand") {
  struct Case {
    const char* name;
    std::vector<SiaJob> jobs;
    std::vector<std::uint64_t> capacity;
    SiaParams params;
    std::vector<int> want;
    std::vector<int> rounded = {};  // with mip_nodes 0 (the relaxation rounded), where it differs
  };
  const Case cases[] = {
      // Terms 1.1 - g^-0.5: one slow GPU 0.1, two 1.1 - 1.8^-0.5 = 0.355, one fast 1.1 - 2.5^-0.5 = 0.468.
      {"one job takes its best configuration",
       {{{{0, 1, 2.0}, {0, 2, 3.6}, {1, 1, 5.0}}, -1, 1}},
       {2, 1},
       params(),
       {2}},
      // A is 4x faster on type 1, B 1.2x: A fast + B slow = 0.6 + 0.1 beats B fast + A slow = 0.187 + 0.1.
      {"the fast type goes to the job it speeds up most",
       {{{{0, 1, 1.0}, {1, 1, 4.0}}, -1, 1}, {{{0, 1, 1.0}, {1, 1, 1.2}}, -1, 1}},
       {1, 1},
       params(),
       {1, 0}},
      // Equal terms (0.1 each); lambda_a = 0.01 keeps the running job A.
      {"lambda_a keeps a running job against an equal waiting one",
       {{{{0, 1, 1.0}}, -1, 1}, {{{0, 1, 1.0}}, 0, 1}},
       {1},
       params(-0.5, 0.01),
       {-1, 0}},
      // Running on 1 (0.1 + 0.01); 2 GPUs at 1.9 x keep 0.5 = 0.95 is worth 1.1 - 0.95^-0.5 = 0.074.
      {"the restart factor holds a running job's size",
       {{{{0, 1, 1.0}, {0, 2, 1.9}}, 0, 0.5}},
       {2},
       params(-0.5, 0.01),
       {0}},
      // Undiscounted, 2 GPUs are worth 1.1 - 1.9^-0.5 = 0.374 > 0.11: it grows.
      {"without the discount it grows", {{{{0, 1, 1.0}, {0, 2, 1.9}}, 0, 1}}, {2}, params(-0.5, 0.01), {1}},
      // A linear (1, 2, 4), B flat-ish (1, 1.2, 1.3) on 4 GPUs. p = -0.5: A on 4 (0.6) beats A 2 + B 2
      // (0.393 + 0.187 = 0.580) and A 2 + B 1 (0.493). p = 1 (terms 1.1 + g): A 2 + B 2 = 3.1 + 2.3
      // beats A 4 (5.1) and A 2 + B 1 (5.2).
      {"p = -0.5 may leave a job waiting",
       {{{{0, 1, 1.0}, {0, 2, 2.0}, {0, 4, 4.0}}, -1, 1}, {{{0, 1, 1.0}, {0, 2, 1.2}, {0, 4, 1.3}}, -1, 1}},
       {4},
       params(),
       {2, -1}},
      // The relaxation is fractional here and rounding keeps A on 2, then gives B the best that
      // fits, 1 GPU (5.2): the search is what finds 5.4.
      {"p = 1 maximises the sum",
       {{{{0, 1, 1.0}, {0, 2, 2.0}, {0, 4, 4.0}}, -1, 1}, {{{0, 1, 1.0}, {0, 2, 1.2}, {0, 4, 1.3}}, -1, 1}},
       {4},
       params(1),
       {1, 1},
       {1, 0}},
      // A rigid job of 4 does not fit 3 GPUs; a job without options is never chosen.
      {"what does not fit is not chosen", {{{{0, 4, 1.0}}, -1, 1}, {{}, -1, 1}}, {3}, params(), {-1, -1}},
      {"nothing free, nobody runs", {{{{0, 1, 1.0}}, -1, 1}}, {0}, params(), {-1}},
  };
  for (const auto& c : cases) {
    const std::string name = c.name;
    CAPTURE(name);
    for (std::uint64_t nodes : {std::uint64_t{0}, c.params.nodes}) {
      CAPTURE(nodes);
      SiaParams sp = c.params;
      sp.nodes = nodes;
      const SiaPlan plan = sia_plan(c.jobs, c.capacity, sp);
      CHECK(plan.choice == (nodes == 0 && !c.rounded.empty() ? c.rounded : c.want));
    }
  }
}

// Seeded small instances (5 jobs, 2 types of 4 and 2 GPUs, rigid and elastic, some running with
// a discount): every plan fits and is maximal (no job left out has a configuration that still
// fits); with the search, its objective is brute force's best (within Sia's 1e-4 gap).
TEST_CASE("Sched.Sia.invariants_and_optimum") {
  schedlab::engine::Rng rng(37);
  const std::vector<std::uint64_t> capacity{4, 2};
  for (int round = 0; round < 60; ++round) {
    std::vector<SiaJob> jobs(5);
    for (auto& job : jobs) {
      const bool rigid = rng.uniform_int(0, 2) == 0;
      const std::uint64_t size = 1u << rng.uniform_int(0, 2);
      for (std::size_t t = 0; t < 2; ++t) {
        const double speed = 1 + rng.uniform() * 3;
        if (rigid) {
          job.options.push_back({t, size, speed * static_cast<double>(size)});
          continue;
        }
        for (std::uint64_t n = 1; n <= 4; n *= 2)
          job.options.push_back({t, n, speed * std::pow(static_cast<double>(n), 0.3 + 0.6 * rng.uniform())});
      }
      if (rng.uniform_int(0, 2) == 0) {
        job.current = static_cast<int>(rng.uniform_int(0, static_cast<std::int64_t>(job.options.size()) - 1));
        job.keep = rng.uniform();
      }
    }
    const double p = round % 3 == 0 ? 0.5 : -0.5;
    // Brute force over every choice (-1 or an option, per job).
    double best = 0;
    std::vector<int> choice(jobs.size(), -1);
    std::function<void(std::size_t)> walk = [&](std::size_t j) {
      if (j == jobs.size()) {
        // (a negative term is never worth choosing: the plan leaves such a job out)
        bool positive = true;
        for (std::size_t i = 0; i < jobs.size(); ++i)
          if (choice[i] >= 0 && term(jobs[i], static_cast<std::size_t>(choice[i]), params(p, 0.01)) <= 0)
            positive = false;
        if (positive && fits(jobs, choice, capacity)) best = std::max(best, objective(jobs, choice, params(p, 0.01)));
        return;
      }
      for (int k = -1; k < static_cast<int>(jobs[j].options.size()); ++k) {
        choice[j] = k;
        walk(j + 1);
      }
      choice[j] = -1;
    };
    walk(0);
    for (std::uint64_t nodes : {0, 1000}) {
      CAPTURE(round);
      CAPTURE(nodes);
      const SiaPlan plan = sia_plan(jobs, capacity, params(p, 0.01, nodes));
      REQUIRE(plan.choice.size() == jobs.size());
      CHECK(fits(jobs, plan.choice, capacity));
      std::vector<std::uint64_t> left = capacity;
      for (std::size_t j = 0; j < jobs.size(); ++j)
        if (plan.choice[j] >= 0)
          left[jobs[j].options[static_cast<std::size_t>(plan.choice[j])].type] -=
              jobs[j].options[static_cast<std::size_t>(plan.choice[j])].gpus;
      for (std::size_t j = 0; j < jobs.size(); ++j)
        if (plan.choice[j] < 0)
          for (std::size_t k = 0; k < jobs[j].options.size(); ++k)
            if (term(jobs[j], k, params(p, 0.01)) > 0) CHECK(jobs[j].options[k].gpus > left[jobs[j].options[k].type]);
      const double got = objective(jobs, plan.choice, params(p, 0.01));
      CHECK(got <= best + 1e-9);
      if (nodes > 0) {
        CHECK(plan.solve == "optimal");
        CHECK(got >= best * (1 - 1e-4) - 1e-9);
      }
    }
  }
}
