// The waiting jobs' lanes under admission pools (pool_lanes.h).
#include "sched/pool_lanes.h"

#include <cassert>

#include "pools/pool_book.h"

namespace schedlab::sched {

std::uint8_t PoolLanes::lane_of(const pools::PoolBook& book, std::int32_t pool, const workload::JobSpec& job) {
  if (pool < 0) return kNoLane;
  const auto lane = static_cast<std::uint64_t>(pool) * 2 + (book.held_to_reservation(pool, job) ? 1 : 0);
  return lane < kNoLane ? static_cast<std::uint8_t>(lane) : kNoLane;
}

double PoolLanes::task_gpus(const workload::JobSpec& job) { return pools::amounts_of(job, 1)[0]; }

void PoolLanes::add(std::uint8_t lane, double task_gpus) {
  if (lane == kNoLane) return;
  if (waiting_.size() <= lane) waiting_.resize(std::size_t{lane} + 1);
  ++waiting_[lane][task_gpus];
}

void PoolLanes::remove(std::uint8_t lane, double task_gpus) {
  if (lane == kNoLane) return;
  auto& counts = waiting_[lane];
  auto it = counts.find(task_gpus);
  assert(it != counts.end());
  if (--it->second == 0) counts.erase(it);
}

std::uint64_t PoolLanes::closed(const pools::PoolBook& book) const {
  std::uint64_t mask = 0;
  for (std::size_t lane = 0; lane < waiting_.size(); ++lane) {
    if (waiting_[lane].empty()) continue;
    // Every job of the lane asks at least this many GPUs (per task, and it waits with one
    // task or more): when these would go over, so would each job's, as the admission counts.
    const double least = waiting_[lane].begin()->first;
    pools::Resource which{};
    const pools::Amounts extra{least, 0, 0};
    if (book.first_exceeded(static_cast<std::int32_t>(lane / 2), extra, lane % 2 == 1, which) >= 0)
      mask |= bit(static_cast<std::uint8_t>(lane));
  }
  return mask;
}

}  // namespace schedlab::sched
