// Pollux's allocation (Qiao et al., "Pollux: co-adaptive cluster scheduling for goodput-optimized
// deep learning", OSDI'21), as a plain function over numbers: the GPU counts that maximise the
// generalised (power) mean of the jobs' speedups, a speedup being a job's goodput on its GPUs over
// its goodput on the fair share, discounted for a running job whose count changes (the restart
// penalty). Pollux searches with a genetic algorithm; this is a deterministic local search
// (docs/elastic.md "pollux"). The `scheduler.policy: pollux` step (pollux_step.h) realises it.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace schedlab::sched {

struct PolluxJob {
  std::uint64_t min = 1, max = 1;  // the GPU range (a rigid job: min = max)
  std::uint64_t held = 0;          // GPUs it runs on now (0: it waits); a running job keeps >= min
  double keep = 1;                 // in [0, 1]: its speedup's factor at any count but `held` (held > 0)
};

// The speedups' mean is (1/J sum_j (s_j + eps)^p)^(1/p) (p = 0: the geometric mean), the
// artifact's eps = 1e-3 keeping a job without GPUs finite.
inline constexpr double kPolluxEpsilon = 1e-3;

// goodput(i, n): job i's goodput on n >= 1 GPUs (> 0). `fair`: the GPU count a speedup is
// measured against (the artifact: ceil(GPUs / jobs)). `p` in [-10, 1]. Returns each job's GPUs
// (0 = it waits), in the order of `jobs`; their sum is at most `capacity`, which covers the
// running jobs' held GPUs. Ties go to the earlier job.
std::vector<std::uint64_t> pollux_sizes(const std::vector<PolluxJob>& jobs, std::uint64_t capacity, std::uint64_t fair,
                                        double p, const std::function<double(std::size_t, std::uint64_t)>& goodput);

}  // namespace schedlab::sched
