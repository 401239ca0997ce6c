// The waiting jobs' lanes under admission pools (pool_lanes.h).
#include "sched/pool_lanes.h"

#include <algorithm>
#include <cassert>

#include "pools/pool_book.h"

namespace schedlab::sched {

std::uint8_t PoolLanes::lane_of(const pools::PoolBook& book, std::int32_t pool, const workload::JobSpec& job) {
  if (pool < 0) return kNoLane;
  const auto lane = static_cast<std::uint64_t>(pool) * 2 + (book.held_to_reservation(pool, job) ? 1 : 0);
  return lane < kNoLane ? static_cast<std::uint8_t>(lane) : kNoLane;
}

double PoolLanes::gpus(const workload::JobSpec& job, std::uint32_t tasks) { return pools::amounts_of(job, tasks)[0]; }

void PoolLanes::add(std::uint8_t lane, double gpus) {
  if (lane == kNoLane) return;
  if (waiting_.size() <= lane) waiting_.resize(std::size_t{lane} + 1);
  auto& w = waiting_[lane];
  auto it = std::lower_bound(w.begin(), w.end(), gpus, [](const auto& e, double g) { return e.first < g; });
  if (it == w.end() || it->first != gpus) it = w.insert(it, {gpus, 0});
  ++it->second;
}

void PoolLanes::remove(std::uint8_t lane, double gpus) {
  if (lane == kNoLane) return;
  auto& w = waiting_[lane];
  auto it = std::lower_bound(w.begin(), w.end(), gpus, [](const auto& e, double g) { return e.first < g; });
  assert(it != w.end() && it->first == gpus);
  if (--it->second == 0) w.erase(it);
}

LaneRefusals PoolLanes::refusals(const pools::PoolBook& book) const {
  LaneRefusals r;
  for (std::size_t lane = 0; lane < waiting_.size(); ++lane) {
    const auto& w = waiting_[lane];
    if (w.empty()) continue;
    // Taking more is refused wherever taking less is (each pool's bound is checked as
    // allocation + extra > bound, which grows with extra): the amounts refused are those
    // from the first refused one, and admission pools, which also counts CPUs and memory,
    // refuses at least those.
    auto refused = [&](const std::pair<double, std::uint32_t>& e) {
      pools::Resource which{};
      return book.first_exceeded(static_cast<std::int32_t>(lane / 2), pools::Amounts{e.first, 0, 0}, lane % 2 == 1,
                                 which) >= 0;
    };
    auto first = std::partition_point(w.begin(), w.end(), [&](const auto& e) { return !refused(e); });
    if (first == w.end()) continue;
    r.from[lane] = first->first;
    if (first == w.begin()) r.closed |= bit(static_cast<std::uint8_t>(lane));
  }
  return r;
}

}  // namespace schedlab::sched
