// Gavel's round-based mechanism (scheduler.py, `_update_priorities` and
// `_schedule_jobs_on_workers_helper`): which job runs on which GPU type in the next round so
// that, over many rounds, each job's time on each type approaches the allocation X. A job's
// priority on a type is X[job][type] divided by the share of that type's time it has received
// since the allocation was last reset; jobs are taken greedily by priority while their scale
// factor fits in the type's GPUs left. docs/elastic.md has the details and the differences.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "sched/gavel/throughput_matrix.h"

namespace schedlab::sched::gavel {

struct RoundHistory {
  // jobs x types, row-major: the time each job has run on each type since the allocation was
  // last reset (Gavel starts every job at half a round after a reset). Empty: none yet.
  std::vector<double> received;
  // jobs x types: Gavel's deficits (time it should have received minus time it did, summed
  // over resets), the first tie-break after priority. Empty: all 0.
  std::vector<double> deficit;
};

struct RoundOptions {
  // Gavel's default: one queue per type, the types taken in the matrix's order (put the
  // fastest first), each type's jobs by priority. With a global queue, every (job, type)
  // entry is sorted together.
  bool global_queue = false;
};

// Priority of (job, type): 0 where X is 0 or the job cannot run on the type; X / fraction
// where the job has received a fraction > 0 of the type's time; X x 1e9 where it has received
// none (Gavel's "not infinity, so that twice as much stays twice as much").
std::vector<double> round_priorities(const ThroughputMatrix& m, const Allocation& x, const RoundHistory& history);

// The next round: per job the GPU type it runs on, or none. Every chosen job gets
// scale_factor GPUs of its type, no type is overcommitted, a job runs on one type at most.
// Ties keep job order. Throws std::invalid_argument when sizes do not match the matrix or a
// history value is negative or not finite (the caller's bug, not input).
std::vector<std::optional<std::size_t>> next_round(const ThroughputMatrix& m, const Allocation& x,
                                                   const RoundHistory& history, const RoundOptions& options = {});

}  // namespace schedlab::sched::gavel
