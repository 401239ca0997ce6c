// Pollux's counts (sched/pollux_plan.h), worked out by hand: the power mean of speedups over the
// fair share, p = -1 unless said, eps = 1e-3, and the restart discount `keep`.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sched/elastic_settings.h"
#include "sched/pollux_plan.h"
#include "util/error.h"

using namespace schedlab::sched;

namespace {
double pollux_linear(std::size_t, std::uint64_t n) { return static_cast<double>(n); }
// Job 0 scales linearly, job 1 not at all.
double pollux_linear_then_flat(std::size_t i, std::uint64_t n) { return i == 0 ? static_cast<double>(n) : 1.0; }
}  // namespace

TEST_CASE("Sched.Pollux.sizes_by_power_mean") {
  struct Case {
    const char* name;
    std::vector<PolluxJob> jobs;
    std::uint64_t capacity, fair;
    double p;
    double (*goodput)(std::size_t, std::uint64_t);
    std::vector<std::uint64_t> want;
  };
  const Case cases[] = {
      // Fair share 2, speedup n/2, u = -1/(s + eps). From none, one GPU gains most per GPU
      // (~998); job 0 first (tie), then job 1; then 1 -> 2 gains 0.999 each: 2 + 2. A third GPU
      // (0.333) would cost the other 0.999: no.
      {"two waiting jobs share evenly", {{1, 4, 0, 1}, {1, 4, 0, 1}}, 4, 2, -1, pollux_linear, {2, 2}},
      // p = 1 is the sum of speedups: job 1's one GPU is worth speedup 1, each of job 0's 0.5.
      {"p = 1 maximises the sum", {{1, 4, 0, 1}, {1, 4, 0, 1}}, 4, 2, 1, pollux_linear_then_flat, {3, 1}},
      // Running 3 + 1, discount 0.5 at any other count: 2 + 2 would score -1/0.501 x 2 = -3.99,
      // worse than keeping -1/1.501 - 1/0.501 = -2.66.
      {"the restart discount keeps a running split", {{1, 4, 3, 0.5}, {1, 4, 1, 0.5}}, 4, 2, -1, pollux_linear, {3, 1}},
      // Without the discount the split evens out: job 1's 2nd GPU gains 0.997, job 0 loses 0.333.
      {"no discount, the split evens out", {{1, 4, 3, 1}, {1, 4, 1, 1}}, 4, 2, -1, pollux_linear, {2, 2}},
      // A waiting job (min 2) is worth ~999 to start; the running one gives two GPUs (loses 0.5).
      {"a waiting job is started by shrinking a running one",
       {{1, 4, 4, 1}, {2, 4, 0, 1}},
       4,
       2,
       -1,
       pollux_linear,
       {2, 2}},
      // A running job keeps its min: job 1 (min 2) does not fit the 1 GPU job 0 could give.
      {"a running job keeps its min", {{3, 4, 4, 1}, {2, 4, 0, 1}}, 4, 2, -1, pollux_linear, {4, 0}},
      // Job 1 (held 2, discount 0.8) gains most per GPU going to 4 (0.187), which the one free GPU
      // cannot fund (job 0 waits, job 1 is at its min); its smaller growth to 3 (0.166) fits.
      {"a smaller growth where the best does not fit", {{2, 3, 0, 1}, {2, 5, 2, 0.8}}, 3, 2, -1, pollux_linear, {0, 3}},
      {"nothing free, nobody runs", {{1, 4, 0, 1}}, 0, 1, -1, pollux_linear, {0}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    CHECK(pollux_sizes(c.jobs, c.capacity, c.fair, c.p, c.goodput) == c.want);
  }
}

// A job without a speed-up beyond one GPU gets one; the GPUs nobody gains from stay free.
TEST_CASE("Sched.Pollux.no_gain_no_gpus") {
  auto flat = [](std::size_t, std::uint64_t) { return 1.0; };
  CHECK(pollux_sizes({{1, 8, 0, 1}}, 8, 8, -1, flat) == std::vector<std::uint64_t>{1});
}

// The search never leaves a running job below its min, never exceeds a range or the capacity,
// and (p = 0 and p = -1) ends at a state no single move of one job's GPUs improves.
TEST_CASE("Sched.Pollux.invariants") {
  auto concave = [](std::size_t i, std::uint64_t n) { return std::pow(static_cast<double>(n), 0.3 + 0.05 * (i % 10)); };
  for (double p : {-1.0, 0.0, 0.5}) {
    std::vector<PolluxJob> jobs;
    std::uint64_t held = 0;
    for (std::uint64_t i = 0; i < 12; ++i) {
      const std::uint64_t h = i % 3 == 0 ? 2 : 0;
      jobs.push_back({1 + i % 2, 6, h, 0.8});
      held += h;
    }
    for (std::uint64_t cap : {held, held + 1, held + 7, std::uint64_t{64}}) {
      CAPTURE(p);
      CAPTURE(cap);
      const auto sizes = pollux_sizes(jobs, cap, 2, p, concave);
      std::uint64_t sum = 0;
      for (std::size_t i = 0; i < jobs.size(); ++i) {
        CHECK((sizes[i] == 0 || (sizes[i] >= jobs[i].min && sizes[i] <= jobs[i].max)));
        if (jobs[i].held > 0) CHECK(sizes[i] >= jobs[i].min);
        sum += sizes[i];
      }
      CHECK(sum <= cap);
    }
  }
  std::vector<PolluxJob> over{{1, 4, 3, 1}};
  CHECK_THROWS_AS(pollux_sizes(over, 2, 1, -1, pollux_linear), std::logic_error);
}

// scheduler.args.pollux read by pollux_settings: defaults, each argument, and the values refused.
TEST_CASE("Sched.Pollux.settings_table") {
  struct Case {
    std::vector<std::pair<std::string, std::string>> args;
    bool ok;
    double p, penalty, growth, interval;
  };
  const std::vector<Case> cases = {
      {{}, true, -1, 30, 0, 0},
      {{{"p", "0"}, {"restart_penalty_s", "0"}}, true, 0, 0, 0, 0},
      {{{"growth", "2"}, {"interval_s", "60"}}, true, -1, 30, 2, 60},
      {{{"growth", "0"}}, true, -1, 30, 0, 0},
      {{{"growth", "1"}}, true, -1, 30, 1, 0},
      {{{"growth", "1024"}}, true, -1, 30, 1024, 0},
      {{{"growth", "0.5"}}, false, 0, 0, 0, 0},   // below 1 but not off
      {{{"growth", "1025"}}, false, 0, 0, 0, 0},  // above the range
      {{{"growth", "-1"}}, false, 0, 0, 0, 0},
      {{{"interval_s", "-1"}}, false, 0, 0, 0, 0},
      {{{"interval", "60"}}, false, 0, 0, 0, 0},  // unknown name
  };
  for (const auto& c : cases) {
    SchedulerConfig config;
    config.policy = "pollux";
    schedlab::util::NamedArgs args;
    for (const auto& [k, v] : c.args) args.values.emplace(k, schedlab::util::ArgValue(v));
    config.args["pollux"] = args;
    if (!c.ok) {
      CHECK_THROWS_AS(pollux_settings(config), schedlab::util::InputError);
      continue;
    }
    const auto s = pollux_settings(config);
    CHECK(s.p == c.p);
    CHECK(s.restart_penalty_s == c.penalty);
    CHECK(s.growth == c.growth);
    CHECK(s.interval_s == c.interval);
  }
}
