// The waiting jobs' lanes under admission pools: a lane is a pool and whether its jobs are
// held to the pool's reservation (PoolBook::held_to_reservation). A lane is closed when even
// the fewest GPUs that one task of its waiting jobs asks would take the pool (or one above
// it) over its bound: admission pools then refuses every job waiting in it, and a start pass
// passes over them by the lane's bit in QueueNeedIndex instead of asking about each, so an
// overloaded pool costs a pass a few block hops instead of a walk of its jobs.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "workload/job_spec.h"

namespace schedlab::pools {
class PoolBook;
}

namespace schedlab::sched {

class PoolLanes {
 public:
  // Lanes are bits of a 64-bit mask; the last bit stands for the jobs of no lane (no pool, or
  // a lane past those kept), which are never closed.
  static constexpr std::uint8_t kNoLane = 63;
  static constexpr std::uint64_t bit(std::uint8_t lane) { return std::uint64_t{1} << lane; }

  // The lane of a job waiting in `pool` (-1: none).
  static std::uint8_t lane_of(const pools::PoolBook& book, std::int32_t pool, const workload::JobSpec& job);
  // The GPUs one task of the job holds in its pool (a share counts as its fraction): what a
  // lane's closing is judged by, a lower bound of what admission pools asks for its tasks.
  static double task_gpus(const workload::JobSpec& job);

  // A job starts or stops waiting in `lane`, asking `task_gpus` per task.
  void add(std::uint8_t lane, double task_gpus);
  void remove(std::uint8_t lane, double task_gpus);
  // The lanes that would refuse every job waiting in them now.
  std::uint64_t closed(const pools::PoolBook& book) const;

 private:
  std::vector<std::map<double, std::uint32_t>> waiting_;  // per lane: GPUs per task -> jobs
};

}  // namespace schedlab::sched
