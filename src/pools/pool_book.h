// The pools as a run sees them: each active job's pool, what each pool's jobs hold and wait
// for (kept current by the scheduler at every submit, start, stop and end, up the tree), each
// pool's entitlement (recomputed every `entitlement_period_s` from that usage and the
// capacity that is up), and for how many periods in a row each pool has held more than it.
// Admission `pools` asks it whether a job still fits its pool's entitlement; preemption
// `pool-reclaim` asks it which pools have stayed over theirs long enough to give back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "pools/pools_config.h"
#include "pools/entitlement.h"
#include "pools/pool_tree.h"
#include "workload/job_spec.h"

namespace schedlab::pools {

// What `tasks` tasks of `job` hold: GPUs (a share counts as its fraction), CPUs, GiB.
Amounts amounts_of(const workload::JobSpec& job, std::uint32_t tasks);

// The PoolTree of a scenario's pools (its checks were made, with lines, when it was read).
PoolTree tree_of(const PoolsConfig& config);

class PoolBook {
 public:
  PoolBook(const PoolsConfig& config, const Amounts& capacity);

  const PoolTree& tree() const { return tree_; }
  const PoolsConfig& config() const { return config_; }
  std::size_t size() const { return tree_.size(); }
  const std::string& name(std::int32_t pool) const { return tree_[static_cast<std::size_t>(pool)].name; }

  // Before the job is submitted: its (leaf) pool.
  void assign(workload::JobId job, std::int32_t pool);
  // -1 when the job is not (or no longer) in the book.
  std::int32_t pool_of(workload::JobId job) const;
  // The pool the job was given, also once it is gone (for results); -1 when never assigned.
  std::int32_t assigned(workload::JobId job) const { return job < assigned_.size() ? assigned_[job] : -1; }

  // The job waits for `tasks` of its tasks (all of them after a stop).
  void waiting(const workload::JobSpec& job, std::uint32_t tasks);
  // `tasks` of its waiting tasks started.
  void started(const workload::JobSpec& job, std::uint32_t tasks);
  // Its running tasks stopped or ended: they hold nothing any more.
  void released(workload::JobId job);
  // The job is gone (ended, failed, dropped).
  void gone(workload::JobId job);

  // Entitlements from the usage now and `capacity` (what is up); advances the count of
  // periods each pool has been above its entitlement.
  void recompute(const Amounts& capacity);
  bool computed() const { return computed_; }

  const Amounts& entitlement(std::int32_t pool) const { return entitlement_[static_cast<std::size_t>(pool)]; }
  const Amounts& allocation(std::int32_t pool) const { return alloc_[static_cast<std::size_t>(pool)]; }
  const Amounts& pending(std::int32_t pool) const { return pending_[static_cast<std::size_t>(pool)]; }
  // Grows each time the pool's allocation, pending or entitlement changes: a reader that
  // remembers it knows whether to look again (results read every pool at every instant).
  std::uint64_t changes(std::int32_t pool) const { return changes_[static_cast<std::size_t>(pool)]; }
  // Consecutive recomputations that found the pool holding more than its entitlement.
  std::uint32_t periods_over(std::int32_t pool) const { return over_[static_cast<std::size_t>(pool)]; }

  // A job that is not preemptible (its own flag, or its pool's) is held to its pool's
  // reservation: what is guaranteed is never taken back.
  bool held_to_reservation(std::int32_t pool, const workload::JobSpec& job) const {
    return !tree_[static_cast<std::size_t>(pool)].preemptible || !job.preemptible;
  }

  // The first pool, from the job's own up to the top, that `extra` more would take above its
  // entitlement (`reservation_only`: above the job's own pool's reservation, for the resources
  // it reserves any of), and the resource; -1 when none.
  std::int32_t first_exceeded(std::int32_t pool, const Amounts& extra, bool reservation_only, Resource& which) const;

  // Why `whole` (everything a job asks for) could never be held by the pool: it is above the
  // limit of the pool or of a pool above it (`reservation_only`: above the pool's reservation,
  // for the resources it reserves any of); nothing when it could.
  std::optional<std::string> never_within(std::int32_t pool, const Amounts& whole, bool reservation_only) const;

 private:
  struct Entry {
    std::int32_t pool = -1;
    Amounts held{};
    Amounts waits{};
  };
  // Adds `delta` (negative to take away) to the pool and every pool above it, counting a change of each.
  void add_up(std::vector<Amounts>& v, const PoolTree& tree, std::int32_t pool, const Amounts& delta, double sign);

  const PoolsConfig& config_;
  PoolTree tree_;
  EntitlementCalculator calc_;
  std::unordered_map<workload::JobId, Entry> jobs_;
  std::vector<std::int32_t> assigned_;  // by job id (dense): what assign() said
  std::vector<std::int32_t> live_;      // by job id (dense): the pool while in jobs_, else -1 (pool_of is hot)
  std::vector<Amounts> alloc_, pending_, entitlement_;
  std::vector<PoolUsage> usage_;
  std::vector<std::uint32_t> over_;
  std::vector<std::uint64_t> changes_;
  bool computed_ = false;
};

}  // namespace schedlab::pools
