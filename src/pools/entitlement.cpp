// Peloton's three-phase entitlement, level by level down a PoolTree (see entitlement.h).
#include "pools/entitlement.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace schedlab::pools {

namespace {

// What is left to split below this fraction of a level's capacity is rounding dust, not
// worth another water-filling round.
constexpr double kEntitlementDust = 1e-9;

void check_usage_amount(const PoolTree& tree, std::size_t pool, const char* what, std::size_t r, double v) {
  if (v >= 0) return;  // also rejects NaN
  throw std::invalid_argument(fmt::format("pool '{}' (#{}): {} of {} is {}; it must be at least 0", tree[pool].name,
                                          pool, what, resource_name(static_cast<Resource>(r)), v));
}

}  // namespace

const std::vector<Amounts>& EntitlementCalculator::compute(const PoolTree& tree, const Amounts& capacity,
                                                           std::span<const PoolUsage> usage) {
  const std::size_t n = tree.size();
  if (usage.size() != n)
    throw std::invalid_argument(
        fmt::format("usage has {} entries for {} pools; it needs one per pool, in the tree's order", usage.size(), n));
  for (std::size_t r = 0; r < kResources; ++r) {
    if (!std::isfinite(capacity[r]) || capacity[r] < 0)
      throw std::invalid_argument(fmt::format("capacity of {} is {}; it must be a finite number, at least 0",
                                              resource_name(static_cast<Resource>(r)), capacity[r]));
  }
  // Sizes only change with the tree: after the first call these neither allocate nor free.
  demand_.resize(n);
  limit_.resize(n);
  entitlement_.assign(n, Amounts{});

  // Children come after their parents, so going backwards sees every child before its parent.
  for (std::size_t i = n; i-- > 0;) {
    const Pool& p = tree[i];
    for (std::size_t r = 0; r < kResources; ++r) {
      double demand = 0;
      double limit = 0;
      if (tree.is_leaf(i)) {
        check_usage_amount(tree, i, "allocation", r, usage[i].allocation[r]);
        check_usage_amount(tree, i, "pending", r, usage[i].pending[r]);
        demand = usage[i].allocation[r] + usage[i].pending[r];
        limit = p.limit[r];
      } else {
        for (const std::int32_t c : tree.children(i)) {
          demand += demand_[static_cast<std::size_t>(c)][r];
          limit += limit_[static_cast<std::size_t>(c)][r];
        }
      }
      demand = std::min(demand, p.limit[r]);
      limit = std::min(limit, p.limit[r]);
      if (p.type == ReservationType::fixed) {
        // Counted as used, so that every ancestor asks for it in its own phase 1.
        demand = std::max(demand, p.reservation[r]);
        limit = std::max(limit, p.reservation[r]);
      }
      demand_[i][r] = demand;
      limit_[i][r] = limit;
    }
  }

  // Parents come before their children, so each pool's entitlement is final before it is split.
  for (std::size_t r = 0; r < kResources; ++r) split_level(tree, tree.top_level(), r, capacity[r]);
  for (std::size_t i = 0; i < n; ++i) {
    if (tree.is_leaf(i)) continue;
    for (std::size_t r = 0; r < kResources; ++r) split_level(tree, tree.children(i), r, entitlement_[i][r]);
  }
  return entitlement_;
}

void EntitlementCalculator::split_level(const PoolTree& tree, std::span<const std::int32_t> pools, std::size_t r,
                                        double capacity) {
  double granted = 0;
  for (const std::int32_t c : pools) {
    const auto i = static_cast<std::size_t>(c);
    entitlement_[i][r] = std::min(demand_[i][r], tree[i].reservation[r]);
    granted += entitlement_[i][r];
  }
  if (granted > capacity) {
    // Over-reserved (hosts lost): everyone keeps the same fraction of what phase 1 gave.
    const double scale = capacity / granted;
    for (const std::int32_t c : pools) entitlement_[static_cast<std::size_t>(c)][r] *= scale;
    return;
  }
  const double dust = kEntitlementDust * capacity;
  const double unclaimed = water_fill(tree, pools, r, capacity - granted, dust, demand_);
  water_fill(tree, pools, r, unclaimed, dust, limit_);
}

double EntitlementCalculator::water_fill(const PoolTree& tree, std::span<const std::int32_t> pools, std::size_t r,
                                         double left, double tolerance, const std::vector<Amounts>& cap) {
  // Each round either fills at least one pool to its cap, which then drops out, or hands out
  // all that is left: at most one round per pool, each going over the pools once.
  while (left > tolerance) {
    double shares = 0;
    for (const std::int32_t c : pools) {
      const auto i = static_cast<std::size_t>(c);
      if (entitlement_[i][r] < cap[i][r]) shares += tree[i].share[r];
    }
    if (shares == 0) break;  // everyone is at their cap
    double given = 0;
    bool filled_one = false;
    for (const std::int32_t c : pools) {
      const auto i = static_cast<std::size_t>(c);
      double& held = entitlement_[i][r];
      if (!(held < cap[i][r])) continue;
      const double offer = left * (tree[i].share[r] / shares);
      if (offer >= cap[i][r] - held) {
        given += cap[i][r] - held;
        held = cap[i][r];  // exactly, so that it drops out of the next round
        filled_one = true;
      } else {
        given += offer;
        held += offer;
      }
    }
    if (!filled_one) return 0;
    left = std::max(0.0, left - given);
  }
  return left;
}

std::vector<Amounts> compute_entitlement(const PoolTree& tree, const Amounts& capacity,
                                         const std::vector<PoolUsage>& usage) {
  EntitlementCalculator calculator;
  return calculator.compute(tree, capacity, usage);
}

}  // namespace schedlab::pools
