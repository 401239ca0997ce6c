// The waiting jobs in queue order with what a backfill pass asks of each first (the GPUs it
// needs to start, how long it says it runs), kept in short sorted blocks with each block's
// least need and least run: the pass past a blocked job finds the next job that could start
// without walking the jobs that could not, and still counts them against its scan limit,
// so an overloaded queue costs a pass a few block hops instead of a walk of the whole window.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "engine/time.h"
#include "sched/parts.h"
#include "sched/pool_lanes.h"
#include "workload/job_spec.h"

namespace schedlab::sched {

// What rules a waiting job out of a backfill pass without a look at the job itself: it
// needs more GPUs than are free, or a task of it more than any host has free, or it needs
// more than the reservation spares while it would end after the reservation
// (`now + run_for > ends_by`), or its pool refuses it (`lanes`, PoolLanes). A job named
// `keep` is never ruled out.
struct BackfillRule {
  std::uint64_t free = 0;
  std::uint64_t host_free = 0;  // the most free GPUs on one host
  std::uint64_t spare = ~std::uint64_t{0};
  engine::Time now = 0;
  engine::Time ends_by = engine::kTimeMax;
  workload::JobId keep = kNoKeep;
  const LaneRefusals* lanes = nullptr;  // none: no job is refused by its pool
  static constexpr workload::JobId kNoKeep = ~workload::JobId{0};

  bool keeps_one() const { return keep != kNoKeep; }

  bool rules_out(std::uint64_t gpus, std::uint64_t task_gpus, engine::Time run_for) const {
    return gpus > free || task_gpus > host_free || (gpus > spare && now + run_for > ends_by);
  }
};

class QueueNeedIndex {
 public:
  using Key = std::pair<OrderKey, workload::JobId>;
  struct Entry {
    Key key;
    std::uint64_t gpus = 0;       // the fewest GPUs it can start on (0: may use shared or no GPUs)
    std::uint64_t task_gpus = 0;  // the whole GPUs one of its tasks needs on one host
    engine::Time run_for = 0;     // its estimate, or its traced duration
    // Under admission pools (PoolLanes): the job's lane, the GPUs it is judged by there
    // (PoolLanes::gpus), and what a start pass must know to pass over it while its pool refuses it: the
    // free GPUs of `allowed` that the admissions before pools need to admit it (0: they
    // admit it whatever is free; kAsk: they must be asked), as a refusal there blocks the queue.
    std::uint8_t lane = PoolLanes::kNoLane;
    double lane_gpus = 0;
    std::uint64_t blocking = 0;
    cluster::ModelMask allowed = 0;
  };
  static constexpr std::uint64_t kAsk = ~std::uint64_t{0};

  void insert(const Entry& e);
  // The key must be present; returns what was held for it.
  Entry erase(const Key& key);
  std::size_t size() const { return size_; }

  // The first job after `after`, in key order, that `rule` does not rule out, if one lies
  // within the next `budget` jobs; every job passed over, and the one returned, is taken
  // from `budget`.
  std::optional<Key> next(const Key& after, std::size_t& budget, const BackfillRule& rule) const;

  // The start pass before the first blocked job: the first job after `after` (from the first
  // one when null) that the pass must try, passing over those that admission pools would
  // refuse without blocking: a job its lane refuses is passed over unless the admissions
  // before pools may refuse it (it needs more free GPUs of its models than `alloc` has, or
  // they must be asked) or it is `keep`.
  std::optional<Key> next_to_try(const Key* after, const LaneRefusals& lanes, workload::JobId keep,
                                 const cluster::AllocationState& alloc) const;

 private:
  struct Block {
    std::vector<Entry> entries;  // sorted by key, never empty
    std::uint64_t min_gpus = 0;
    std::uint64_t min_task_gpus = 0;
    engine::Time min_run = 0;
    std::uint64_t lanes = 0;                                       // the bits of its entries' lanes
    std::uint64_t max_blocking = 0;                                // the most of its entries' `blocking`
    cluster::ModelMask blocking_allowed = ~cluster::ModelMask{0};  // the models all entries that block may use
  };
  static void sum_up(Block& b);
  static void add_to(Block& b, const Entry& e);
  // The block that holds `key`, or would: the first whose last key is not below it.
  std::size_t block_of(const Key& key) const;
  // Where the first entry past `after` is (its block and position; the block is past the
  // last when there is none), from where the last call stopped when it stopped there.
  std::pair<std::size_t, std::size_t> first_past(const Key& after) const;

  std::vector<Block> blocks_;
  std::size_t size_ = 0;
  // Where `next` last stopped, while no insert or erase has moved it: the usual next call
  // starts from there instead of searching.
  mutable struct {
    bool valid = false;
    Key key;
    std::size_t block = 0, pos = 0;
  } last_;
};

}  // namespace schedlab::sched
