// Optimus' allocation (Peng et al., EuroSys'18; the marginal-gain idea as AFS, NSDI'21, uses
// it), as a plain function over numbers: every job first gets its fewest GPUs, in the order
// given, as far as they fit; then the GPUs left go one at a time to the job whose remaining
// time drops most with one more GPU, until none is left or no job gains. The scheduler's
// `scheduler.policy: optimus` step (optimus_step.h) realises the sizes this returns.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace schedlab::sched {

struct SizingJob {
  std::uint64_t min = 1, max = 1;  // the GPU range (a rigid job: min = max)
  double remaining = 0;            // work left, in the perf model's units (time at speed 1)
};

// speed(i, n): job i's speed on n GPUs (> 0). Returns each job's GPUs (0 = it waits), in the
// order of `jobs`; their sum is at most `capacity`. Ties in gain go to the earlier job.
std::vector<std::uint64_t> optimus_sizes(const std::vector<SizingJob>& jobs, std::uint64_t capacity,
                                         const std::function<double(std::size_t, std::uint64_t)>& speed);

}  // namespace schedlab::sched
