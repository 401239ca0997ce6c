// A tree of resource pools as plain values, checked once when it is built: each pool's
// guarantee (reservation), ceiling (limit) and weight (share) per resource, in the shape of
// Peloton's resource pools. Everything that reads a PoolTree (entitlement, admission) may
// rely on its rules instead of checking again: parents come before their children, numbers
// are sane, a limit is never below its reservation, and children's reservations fit inside
// their parent's.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace schedlab::pools {

enum class Resource : std::uint8_t { gpus, cpus, mem };
inline constexpr std::size_t kResources = 3;

// "gpus", "cpus", "mem": the words used in error messages.
const char* resource_name(Resource r);

// One number per resource, indexed by Resource: GPUs, CPU cores, memory in GiB.
using Amounts = std::array<double, kResources>;

inline constexpr double kUnlimited = std::numeric_limits<double>::infinity();

enum class ReservationType : std::uint8_t {
  elastic,  // lends the unused part of its reservation to others until it asks for it
  fixed,    // Peloton's STATIC: holds its whole reservation whether it uses it or not
};

struct Pool {
  std::string name;
  std::int32_t parent = -1;  // index of the parent pool; -1 for a top-level pool
  ReservationType type = ReservationType::elastic;
  Amounts reservation{};                              // guaranteed, as long as the reservations fit the cluster
  Amounts limit{kUnlimited, kUnlimited, kUnlimited};  // never more than this
  Amounts share{1, 1, 1};                             // weight when splitting what is left
  bool preemptible = true;                            // stored for admission; not read here

  bool operator==(const Pool&) const = default;
};

// Pools in index order with their children lists. The constructor throws
// std::invalid_argument naming the pool (`pool 'A1' (#3): ...`) and the numbers when:
// - a name is empty, or repeats a sibling's name;
// - a parent is not -1 and not the index of an earlier pool (so the tree has no cycles and
//   one pass in index order visits parents before children);
// - a reservation, limit or share is NaN or negative, a reservation or share is infinite
//   (a limit may be kUnlimited), or a share is 0;
// - a limit is below the reservation;
// - the reservations of a pool's children add up to more than the pool's own reservation.
//   This is Peloton's rule and it holds for every parent: a child's guarantee is carved out
//   of its parent's, so a parent reserving nothing has children reserving nothing. It is
//   what makes the guarantees hold at every depth whenever the top-level reservations fit.
class PoolTree {
 public:
  PoolTree() = default;  // no pools
  explicit PoolTree(std::vector<Pool> pools);

  const std::vector<Pool>& pools() const { return pools_; }
  std::size_t size() const { return pools_.size(); }
  const Pool& operator[](std::size_t i) const { return pools_[i]; }

  std::span<const std::int32_t> top_level() const { return children_of_slot(0); }
  std::span<const std::int32_t> children(std::size_t pool) const { return children_of_slot(pool + 1); }
  bool is_leaf(std::size_t pool) const { return children(pool).empty(); }

  bool operator==(const PoolTree& other) const { return pools_ == other.pools_; }

 private:
  // Slot 0 lists the top-level pools, slot i + 1 the children of pool i, each in index order.
  std::span<const std::int32_t> children_of_slot(std::size_t slot) const {
    return {child_.data() + child_begin_[slot], child_begin_[slot + 1] - child_begin_[slot]};
  }

  std::vector<Pool> pools_;
  std::vector<std::int32_t> child_;
  std::vector<std::size_t> child_begin_ = {0, 0};  // size() + 2 offsets into child_
};

}  // namespace schedlab::pools
