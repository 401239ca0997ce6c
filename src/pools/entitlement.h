// How much of the cluster each pool is entitled to now, given what its jobs hold and wait
// for: Peloton's elastic entitlement, a pure function of the pool tree, the usage and the
// capacity, meant to be recomputed on a period and read by admission and preemption. Each
// resource is computed on its own, and every level of the tree is split by the same rules:
// the top level shares the cluster's capacity, the children of a pool share the pool's
// entitlement.
//
// At each level, for each resource:
// 1. Reservation: each pool gets min(demand, reservation). If those grants add up to more
//    than the capacity being split (the cluster lost hosts), each is scaled down by the same
//    factor, so that they add up to the capacity and nothing is left for phases 2 and 3;
//    a pool keeps the same fraction of its guarantee as every other pool.
// 2. Demand: what is left is split in proportion to share among the pools that want more
//    than they hold, none getting more than its demand; what a pool cannot take goes round
//    again to the others (water-filling).
// 3. Unclaimed: what nobody wants is split by share among all pools, none getting more than
//    its limit, again water-filling. Idle capacity thus sits in pools, ready for a burst.
//
// Demand: a leaf's is min(allocation + pending, limit). An inner pool's is
// min(sum of its children's demands, limit). A fixed pool demands at least its whole
// reservation, used or not; it is this, passed up the tree, that makes a fixed pool keep
// its reservation even under an elastic parent that has no other demand.
//
// Limit, in phase 3: an inner pool takes no more than the sum of its children's limits
// either, since it could hand no more down; the rest goes to its siblings. (A fixed pool
// still holds its whole reservation.)
//
// Guarantees, per resource, up to floating-point rounding: the children of a pool are
// entitled to no more than the pool (the top level to no more than the capacity); no pool
// more than its limit. When the top-level reservations fit the capacity, every pool gets at
// least min(demand, reservation) and a fixed pool at least its reservation, at every depth
// (PoolTree's rule that children reserve no more than their parent sees to that). The
// result depends only on the inputs, never on earlier calls.
#pragma once

#include <span>
#include <vector>

#include "pools/pool_tree.h"

namespace schedlab::pools {

// What a leaf pool's jobs hold and wait for. Read for leaf pools only; an inner pool's
// demand comes from its children.
struct PoolUsage {
  Amounts allocation{};
  Amounts pending{};

  bool operator==(const PoolUsage&) const = default;
};

// Recomputes entitlement period after period without allocating: its buffers grow to the
// largest tree seen and are reused. Not for use by two threads at once.
class EntitlementCalculator {
 public:
  // Entitlement of every pool, inner and leaf, indexed like tree.pools(); valid until the
  // next call. `usage` has one entry per pool. Throws std::invalid_argument when a capacity
  // is negative, NaN or infinite, a leaf's usage is negative or NaN, or `usage` has the
  // wrong size.
  const std::vector<Amounts>& compute(const PoolTree& tree, const Amounts& capacity, std::span<const PoolUsage> usage);

 private:
  void split_level(const PoolTree& tree, std::span<const std::int32_t> pools, std::size_t r, double capacity);
  double water_fill(const PoolTree& tree, std::span<const std::int32_t> pools, std::size_t r, double left,
                    double tolerance, const std::vector<Amounts>& cap);

  std::vector<Amounts> demand_;       // per pool, as defined above (fixed pools: at least the reservation)
  std::vector<Amounts> limit_;        // per pool: an inner pool's capped by its children's
  std::vector<Amounts> entitlement_;  // the result
};

// The same, for a single computation.
std::vector<Amounts> compute_entitlement(const PoolTree& tree, const Amounts& capacity,
                                         const std::vector<PoolUsage>& usage);

}  // namespace schedlab::pools
