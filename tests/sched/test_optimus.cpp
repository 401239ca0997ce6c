// Optimus' sizes (sched/optimus_plan.h), worked out by hand: fewest GPUs first in the order
// given, then one GPU at a time to the largest drop in remaining time (remaining / speed).
#include <doctest/doctest.h>

#include <algorithm>

#include "sched/optimus_plan.h"

using namespace schedlab::sched;

namespace {
double linear(std::size_t, std::uint64_t n) { return static_cast<double>(n); }
double flat(std::size_t, std::uint64_t) { return 1.0; }
}  // namespace

TEST_CASE("Sched.Optimus.sizes_by_marginal_gain") {
  struct Case {
    const char* name;
    std::vector<SizingJob> jobs;
    std::uint64_t capacity;
    double (*speed)(std::size_t, std::uint64_t);
    std::vector<std::uint64_t> want;
  };
  const Case cases[] = {
      // Mins 1 + 1, 2 left. Gains: A 200/1-200/2 = 100, B 100/1-100/2 = 50: A gets its 2nd;
      // then A 200/2-200/3 = 33.3 < B 50: B gets its 2nd.
      {"the longer job gains more, then the shorter", {{1, 4, 200}, {1, 4, 100}}, 4, linear, {2, 2}},
      // A rigid 2 fits, B's min 2 does not fit the 1 left, C's 1 does (later jobs may pass).
      {"mins in order, as far as they fit", {{2, 2, 50}, {2, 4, 50}, {1, 1, 50}}, 3, linear, {2, 0, 1}},
      // No speed-up, no gain: every job keeps its fewest GPUs, the rest stay free.
      {"no gain, no more GPUs", {{1, 8, 100}}, 8, flat, {1}},
      // Equal gains (50 each): the earlier job wins the last GPU.
      {"ties go to the earlier job", {{1, 4, 100}, {1, 4, 100}}, 3, linear, {2, 1}},
      // Never above max: A stops at 2, B takes the rest up to its 3.
      {"max caps the greedy", {{1, 2, 1000}, {1, 3, 10}}, 8, linear, {2, 3}},
      {"nothing free, nobody runs", {{1, 4, 100}}, 0, linear, {0}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    CHECK(optimus_sizes(c.jobs, c.capacity, c.speed) == c.want);
  }
}

TEST_CASE("Sched.Optimus.never_over_capacity") {
  std::vector<SizingJob> jobs;
  for (int i = 0; i < 20; ++i) jobs.push_back({1 + i % 3u, 8, 100.0 * (i + 1)});
  for (std::uint64_t cap : {0u, 1u, 7u, 20u, 64u, 500u}) {
    CAPTURE(cap);
    const auto sizes = optimus_sizes(jobs, cap, linear);
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      CHECK((sizes[i] == 0 || (sizes[i] >= jobs[i].min && sizes[i] <= jobs[i].max)));
      sum += sizes[i];
    }
    CHECK(sum <= cap);
  }
}

// The heap's shortcuts (entries that gain nothing left out, bottom-up sifts) against the rule
// itself: each GPU to the largest gain, ties to the earlier job, found by scanning every job.
// Speeds that rise, level off and fall (gains of 0 and below), repeated ones (ties), caps.
TEST_CASE("Sched.Optimus.same_sizes_as_a_scan_of_every_job") {
  std::uint64_t state = 12345;
  auto draw = [&](std::uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  for (int round = 0; round < 300; ++round) {
    CAPTURE(round);
    const std::size_t n = 1 + draw(40);
    std::vector<SizingJob> jobs;
    std::vector<std::vector<double>> speeds;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t lo = 1 + draw(4), hi = lo + draw(12);
      jobs.push_back({lo, hi, static_cast<double>(1 + draw(round % 3 == 0 ? 3 : 1000))});
      std::vector<double> s(hi + 2);
      for (std::uint64_t k = 1; k < s.size(); ++k)
        s[k] = draw(5) == 0 ? s[k - 1] : std::max(0.5, s[k - 1] + static_cast<double>(draw(7)) - 2.0);
      speeds.push_back(s);
    }
    auto speed = [&](std::size_t i, std::uint64_t k) { return speeds[i][k]; };
    const std::uint64_t capacity = draw(n * 10);
    std::vector<std::uint64_t> want(n, 0);
    std::uint64_t cap = capacity;
    for (std::size_t i = 0; i < n; ++i)
      if (jobs[i].min <= cap) want[i] = jobs[i].min, cap -= jobs[i].min;
    for (; cap > 0; --cap) {
      std::size_t pick = n;
      double top = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (want[i] == 0 || want[i] == jobs[i].max) continue;
        const double g = jobs[i].remaining / speed(i, want[i]) - jobs[i].remaining / speed(i, want[i] + 1);
        if (g > top) top = g, pick = i;
      }
      if (pick == n) break;
      ++want[pick];
    }
    CHECK(optimus_sizes(jobs, capacity, speed) == want);
  }
}
