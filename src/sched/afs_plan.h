// AFS-L's allocation (Hwang et al., "Elastic Resource Sharing for Distributed Deep Learning",
// NSDI'21: Apathetic Future Share, for jobs of known length), as a plain function over numbers:
// GPUs go one at a time; the job of shortest remaining work is the favourite, and a longer job
// takes the GPU from it only when its relative gain, counted against its new speed, beats the
// favourite's counted against its old one (docs/elastic.md "afs" derives the rule). The
// `scheduler.policy: afs` step (afs_step.h) realises the sizes this returns.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sched/optimus_plan.h"

namespace schedlab::sched {

// `running`: the job holds GPUs now and keeps at least its fewest. speed(i, n): job i's speed on
// n >= 1 GPUs (> 0). Returns each job's GPUs (0 = it waits), in the order of `jobs`; their sum
// is at most `capacity`. Equal remaining work: the earlier job is the shorter.
std::vector<std::uint64_t> afs_sizes(const std::vector<SizingJob>& jobs, const std::vector<bool>& running,
                                     std::uint64_t capacity,
                                     const std::function<double(std::size_t, std::uint64_t)>& speed);

}  // namespace schedlab::sched
