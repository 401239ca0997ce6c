// The waiting jobs' lanes under admission pools: a lane is a pool and whether its jobs are
// held to the pool's reservation (PoolBook::held_to_reservation). Admission pools refuses a
// job when its GPUs would take the pool (or one above it) over its bound, so of a lane's
// waiting jobs it refuses those that ask at least some number of GPUs, all of them when the
// lane is closed. A start pass passes over refused jobs by their lane in QueueNeedIndex
// instead of asking about each: an overloaded pool costs a pass a few block hops instead of a
// walk of its jobs.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "workload/job_spec.h"

namespace schedlab::pools {
class PoolBook;
}

namespace schedlab::sched {

// Which waiting jobs each lane refuses now: those that ask `from[lane]` GPUs or more (of the
// amounts its jobs ask); a lane in `closed` refuses every job waiting in it.
struct LaneRefusals {
  std::uint64_t closed = 0;  // a bit per lane (PoolLanes::bit)
  std::array<double, 64> from;
  LaneRefusals() { from.fill(std::numeric_limits<double>::infinity()); }
  bool refuses(std::uint8_t lane, double gpus) const { return gpus >= from[lane]; }
};

class PoolLanes {
 public:
  // Lanes are bits of a 64-bit mask; the last bit stands for the jobs of no lane (no pool, or
  // a lane past those kept), which are never refused.
  static constexpr std::uint8_t kNoLane = 63;
  static constexpr std::uint64_t bit(std::uint8_t lane) { return std::uint64_t{1} << lane; }

  // The lane of a job waiting in `pool` (-1: none).
  static std::uint8_t lane_of(const pools::PoolBook& book, std::int32_t pool, const workload::JobSpec& job);
  // The GPUs `tasks` tasks of the job hold in its pool (a share counts as its fraction). A job
  // is judged by the fewest it can be asked for: all its tasks when they start together (their
  // number does not change while it waits), else one task.
  static double gpus(const workload::JobSpec& job, std::uint32_t tasks);

  // A job starts or stops waiting in `lane`, judged by `gpus`.
  void add(std::uint8_t lane, double gpus);
  void remove(std::uint8_t lane, double gpus);
  // What each lane refuses now.
  LaneRefusals refusals(const pools::PoolBook& book) const;

 private:
  // Per lane: the GPUs its waiting jobs are judged by, ascending, with how many ask each.
  std::vector<std::vector<std::pair<double, std::uint32_t>>> waiting_;
};

}  // namespace schedlab::sched
