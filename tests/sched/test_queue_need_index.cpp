// The need index behind the backfill pass: what `next` returns and what it takes from the
// budget must be what a walk of the queue, job by job, would find; checked by hand on small
// queues and against such a walk over many inserts, erases and rules.
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <optional>

#include "../support/sim_harness.h"
#include "sched/queue_need_index.h"

using schedlab::engine::Time;
using schedlab::sched::BackfillRule;
using schedlab::sched::LaneRefusals;
using schedlab::sched::OrderKey;
using schedlab::sched::PoolLanes;
using schedlab::sched::QueueNeedIndex;

namespace {
QueueNeedIndex::Key key(double primary, std::uint32_t id) { return {OrderKey{primary, 0}, id}; }

// The reference: every job after `after`, one by one, each taken from the budget.
std::optional<QueueNeedIndex::Key> walk(const std::map<QueueNeedIndex::Key, QueueNeedIndex::Entry>& q,
                                        const QueueNeedIndex::Key& after, std::size_t& budget,
                                        const BackfillRule& rule) {
  for (auto it = q.upper_bound(after); it != q.end() && budget > 0; ++it) {
    --budget;
    const auto& e = it->second;
    if (e.key.second == rule.keep ||
        !(rule.rules_out(e.gpus, e.task_gpus, e.run_for) || (rule.lanes && rule.lanes->refuses(e.lane, e.lane_gpus))))
      return it->first;
  }
  return std::nullopt;
}

// The reference of the start pass's walk: the first job after `after` that its lane does
// not refuse, or that the admissions before pools may refuse, or that is kept.
std::optional<QueueNeedIndex::Key> walk_to_try(const std::map<QueueNeedIndex::Key, QueueNeedIndex::Entry>& q,
                                               const QueueNeedIndex::Key* after, const LaneRefusals& lanes,
                                               schedlab::workload::JobId keep,
                                               const schedlab::cluster::AllocationState& alloc) {
  for (auto it = after ? q.upper_bound(*after) : q.begin(); it != q.end(); ++it) {
    const auto& e = it->second;
    const bool admitted_before =
        e.blocking == 0 || (e.blocking != QueueNeedIndex::kAsk && e.blocking <= alloc.free_gpus(e.allowed));
    if (e.key.second == keep || !lanes.refuses(e.lane, e.lane_gpus) || !admitted_before) return it->first;
  }
  return std::nullopt;
}

std::uint64_t lcg(std::uint64_t& s) {
  s = s * 6364136223846793005ULL + 1442695040888963407ULL;
  return s >> 33;
}
}  // namespace

TEST_CASE("Sched.QueueNeedIndex.jobs_ruled_out_count_against_the_budget") {
  QueueNeedIndex index;
  for (std::uint32_t id = 0; id < 10; ++id) index.insert({key(id, id), id == 7 ? 2u : 8u, 1, 100});
  BackfillRule rule;
  rule.free = 4;
  rule.host_free = 4;
  std::size_t budget = 10;
  auto next = index.next(key(0, 0), budget, rule);
  REQUIRE(next);
  CHECK(next->second == 7);
  CHECK(budget == 3);  // jobs 1..7 taken
  budget = 5;
  CHECK_FALSE(index.next(key(0, 0), budget, rule).has_value());  // job 7 lies past the window
  CHECK(budget == 0);
  budget = 10;
  CHECK_FALSE(index.next(*next, budget, rule).has_value());  // 8 and 9 need too much
  CHECK(budget == 8);
}

TEST_CASE("Sched.QueueNeedIndex.reservation_refuses_big_jobs_that_end_late") {
  QueueNeedIndex index;
  index.insert({key(1, 1), 2, 1, 500});  // too big for the spare GPUs, ends after the reservation
  index.insert({key(2, 2), 2, 1, 50});   // ends before it
  index.insert({key(3, 3), 1, 1, 500});  // fits the spare GPUs
  index.insert({key(4, 4), 4, 4, 50});   // its task fits no host
  BackfillRule rule{8, 2, 1, 1000, 1100};
  std::size_t budget = 10;
  auto next = index.next(key(0, 0), budget, rule);
  REQUIRE(next);
  CHECK(next->second == 2);
  next = index.next(*next, budget, rule);
  REQUIRE(next);
  CHECK(next->second == 3);
  CHECK_FALSE(index.next(*next, budget, rule).has_value());
  rule.keep = 1;  // a watched job is always looked at
  budget = 10;
  next = index.next(key(0, 0), budget, rule);
  REQUIRE(next);
  CHECK(next->second == 1);
}

TEST_CASE("Sched.QueueNeedIndex.agrees_with_a_walk_of_the_queue") {
  // 16 V100s, 6 of them taken: jobs that may use only A100s find none free.
  const auto catalog = schedlab::testing::small_catalog();
  const schedlab::cluster::Topology topo(schedlab::testing::uniform_cluster(1, 2, 8), catalog);
  schedlab::cluster::AllocationState alloc(topo);
  schedlab::testing::place_with("first-fit", schedlab::testing::spec_of(1, 6), alloc, ~schedlab::cluster::ModelMask{0});
  const schedlab::cluster::ModelMask masks[] = {1u << schedlab::testing::kV100, 1u << schedlab::testing::kA100,
                                                ~schedlab::cluster::ModelMask{0}};
  QueueNeedIndex index;
  std::map<QueueNeedIndex::Key, QueueNeedIndex::Entry> q;
  std::uint64_t s = 29;
  for (int round = 0; round < 20000; ++round) {
    const auto op = lcg(s) % 10;
    if (op < 6 || q.empty()) {
      // Few distinct primaries, so that ties fall to the id.
      const auto k = key(static_cast<double>(lcg(s) % 500), static_cast<std::uint32_t>(lcg(s) % 100000));
      if (q.count(k)) continue;
      const std::uint64_t task = lcg(s) % 4 == 0 ? 0 : std::uint64_t{1} << (lcg(s) % 4);
      QueueNeedIndex::Entry e{k, task * (1 + lcg(s) % 3), task, static_cast<Time>(lcg(s) % 1000)};
      // Four lanes and jobs of none; what the admissions before pools need free, about the 10 free.
      const auto lane = lcg(s) % 5;
      e.lane = lane == 4 ? PoolLanes::kNoLane : static_cast<std::uint8_t>(lane);
      e.lane_gpus = static_cast<double>(lcg(s) % 5);
      const auto blocking = lcg(s) % 8;
      e.blocking = blocking == 0 ? QueueNeedIndex::kAsk : blocking < 3 ? 0 : 4 * (blocking - 3);
      e.allowed = masks[lcg(s) % 3];
      q[k] = e;
      index.insert(e);
    } else {
      auto it = q.lower_bound(key(static_cast<double>(lcg(s) % 500), 0));
      if (it == q.end()) it = q.begin();
      const auto gone = index.erase(it->first);
      REQUIRE(gone.key == it->first);
      REQUIRE(gone.lane == it->second.lane);
      REQUIRE(gone.lane_gpus == it->second.lane_gpus);
      q.erase(it);
    }
    REQUIRE(index.size() == q.size());
    if (round % 7 != 0) continue;
    BackfillRule rule{lcg(s) % 20, lcg(s) % 9, lcg(s) % 6, 0, static_cast<Time>(lcg(s) % 1200)};
    if (lcg(s) % 5 == 0 && !q.empty())
      rule.keep = std::next(q.begin(), static_cast<std::ptrdiff_t>(lcg(s) % q.size()))->first.second;
    // Each lane refuses from some amount on (closed when from its least), or nothing.
    LaneRefusals lanes;
    for (std::uint8_t lane = 0; lane < 4; ++lane) {
      const auto from = lcg(s) % 7;
      if (from < 5) lanes.from[lane] = static_cast<double>(from);
      if (from == 0) lanes.closed |= PoolLanes::bit(lane);
    }
    if (lcg(s) % 4 != 0) rule.lanes = &lanes;
    auto after = key(static_cast<double>(lcg(s) % 500) - 0.5, 0);
    std::size_t budget = lcg(s) % 400, expected_budget = budget;
    for (int step = 0; step < 4; ++step) {
      const auto got = index.next(after, budget, rule);
      const auto want = walk(q, after, expected_budget, rule);
      REQUIRE(got == want);
      REQUIRE(budget == expected_budget);
      if (!got) break;
      after = *got;
    }
    const QueueNeedIndex::Key* from = lcg(s) % 4 == 0 ? nullptr : &after;
    for (int step = 0; step < 4; ++step) {
      const auto got = index.next_to_try(from, lanes, rule.keep, alloc);
      REQUIRE(got == walk_to_try(q, from, lanes, rule.keep, alloc));
      if (!got) break;
      after = *got;
      from = &after;
    }
  }
}
