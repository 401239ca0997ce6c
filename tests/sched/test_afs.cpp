// AFS-L's counts (sched/afs_plan.h), worked out by hand: one GPU at a time (a job's min from
// none); the shortest job A keeps the GPU unless a longer B has (x_b' - x_b) / x_b' above
// (x_a' - x_a) / x_a (x the speed now, x' with the step; x_a = 0: A always wins).
#include <doctest/doctest.h>

#include "sched/afs_plan.h"

using namespace schedlab::sched;

namespace {
double afs_linear(std::size_t, std::uint64_t n) { return static_cast<double>(n); }
// Job 0 gains nothing beyond one GPU, the others scale linearly.
double afs_first_flat(std::size_t i, std::uint64_t n) { return i == 0 ? 1.0 : static_cast<double>(n); }
}  // namespace

TEST_CASE("Sched.Afs.sizes_by_gain_ratio") {
  struct Case {
    const char* name;
    std::vector<SizingJob> jobs;
    std::vector<bool> running;
    std::uint64_t capacity;
    double (*speed)(std::size_t, std::uint64_t);
    std::vector<std::uint64_t> want;
  };
  const Case cases[] = {
      // A (100) gets 1 (from none: infinite); 1 -> 2: A's 1/1 = 1 vs B's from none 1/1 = 1, a
      // tie keeps A; 2 -> 3: A's 1/2 = 0.5 < B's 1: B gets 1; then A's 0.5 vs B's 1 -> 2 (2-1)/2
      // = 0.5, a tie: A gets its 3rd.
      {"the shorter job first, unless the longer gains more",
       {{1, 4, 100}, {1, 4, 200}},
       {false, false},
       4,
       afs_linear,
       {3, 1}},
      // The order is by remaining work, not by position: B (50) is the shorter here.
      {"shortest remaining work is the favourite", {{1, 4, 200}, {1, 4, 50}}, {false, false}, 4, afs_linear, {1, 3}},
      // No gain, no GPU: A keeps one, B takes the rest.
      {"no gain, no more GPUs", {{1, 4, 10}, {1, 4, 200}}, {false, false}, 4, afs_first_flat, {1, 3}},
      // The running job keeps its 2 first; the shorter waiting job's min 3 does not fit.
      {"a running job keeps its min", {{3, 4, 10}, {2, 4, 200}}, {false, true}, 4, afs_linear, {0, 4}},
      // Equal work: the earlier job is the shorter.
      {"ties go to the earlier job", {{1, 4, 100}, {1, 4, 100}}, {false, false}, 2, afs_linear, {2, 0}},
      {"max caps a job", {{1, 2, 10}, {1, 8, 100}}, {false, false}, 6, afs_linear, {2, 4}},
      {"nothing free, nobody runs", {{1, 4, 100}}, {false}, 0, afs_linear, {0}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    CHECK(afs_sizes(c.jobs, c.running, c.capacity, c.speed) == c.want);
  }
}

TEST_CASE("Sched.Afs.never_over_capacity") {
  std::vector<SizingJob> jobs;
  std::vector<bool> running;
  for (int i = 0; i < 20; ++i) {
    jobs.push_back({1 + i % 3u, 8, 100.0 * ((i * 7) % 20 + 1)});
    running.push_back(i % 4 == 0);
  }
  for (std::uint64_t cap : {12u, 20u, 64u, 500u}) {
    CAPTURE(cap);
    const auto sizes = afs_sizes(jobs, running, cap, afs_linear);
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      CHECK((sizes[i] == 0 || (sizes[i] >= jobs[i].min && sizes[i] <= jobs[i].max)));
      if (running[i]) CHECK(sizes[i] >= jobs[i].min);
      sum += sizes[i];
    }
    CHECK(sum <= cap);
  }
}
