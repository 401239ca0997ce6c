// Building a PoolTree: the checks its header promises, then the children lists.
#include "pools/pool_tree.h"

#include <fmt/format.h>

#include <cmath>
#include <set>
#include <stdexcept>
#include <utility>

namespace schedlab::pools {

const char* resource_name(Resource r) {
  switch (r) {
    case Resource::gpus:
      return "gpus";
    case Resource::cpus:
      return "cpus";
    case Resource::mem:
      return "mem";
  }
  return "?";
}

namespace {

[[noreturn]] void throw_pool_error(const Pool& p, std::size_t index, const std::string& what) {
  throw std::invalid_argument(fmt::format("pool '{}' (#{}): {}", p.name, index, what));
}

// A reservation, limit or share: `what` names it in the message.
void check_pool_amount(const Pool& p, std::size_t index, const char* what, std::size_t r, double v,
                       bool may_be_unlimited) {
  const char* res = resource_name(static_cast<Resource>(r));
  if (std::isnan(v)) throw_pool_error(p, index, fmt::format("{} of {} is not a number", what, res));
  if (v < 0) throw_pool_error(p, index, fmt::format("{} of {} is {}; it must be at least 0", what, res, v));
  if (std::isinf(v) && !may_be_unlimited)
    throw_pool_error(p, index, fmt::format("{} of {} is infinite; it must be a finite number", what, res));
}

}  // namespace

PoolTree::PoolTree(std::vector<Pool> pools) : pools_(std::move(pools)) {
  const std::size_t n = pools_.size();
  if (n > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    throw std::invalid_argument(
        fmt::format("{} pools: at most {} are supported", n, std::numeric_limits<std::int32_t>::max()));

  std::set<std::pair<std::int32_t, std::string>> sibling_names;
  std::vector<Amounts> children_reservation(n, Amounts{});
  for (std::size_t i = 0; i < n; ++i) {
    const Pool& p = pools_[i];
    if (p.name.empty()) throw_pool_error(p, i, "a pool needs a name");
    if (p.parent != -1 && (p.parent < 0 || static_cast<std::size_t>(p.parent) >= i))
      throw_pool_error(
          p, i,
          i == 0 ? fmt::format("parent {} must be -1: the first pool is top-level", p.parent)
                 : fmt::format("parent {} must be -1 (top-level) or an earlier pool's index (below {})", p.parent, i));
    if (!sibling_names.emplace(p.parent, p.name).second)
      throw_pool_error(p, i, "another pool with the same parent has this name");
    for (std::size_t r = 0; r < kResources; ++r) {
      check_pool_amount(p, i, "reservation", r, p.reservation[r], false);
      check_pool_amount(p, i, "limit", r, p.limit[r], true);
      check_pool_amount(p, i, "share", r, p.share[r], false);
      const char* res = resource_name(static_cast<Resource>(r));
      if (p.share[r] == 0) throw_pool_error(p, i, fmt::format("share of {} is 0; it must be above 0", res));
      if (p.limit[r] < p.reservation[r])
        throw_pool_error(
            p, i, fmt::format("limit of {} ({}) is below its reservation ({})", res, p.limit[r], p.reservation[r]));
      if (p.parent >= 0) children_reservation[static_cast<std::size_t>(p.parent)][r] += p.reservation[r];
    }
  }
  // Checked after all pools are read, so that the message can give the children's total.
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t r = 0; r < kResources; ++r) {
      if (children_reservation[i][r] > pools_[i].reservation[r])
        throw_pool_error(
            pools_[i], i,
            fmt::format("its children reserve {} {} in all, more than its own reservation ({})",
                        children_reservation[i][r], resource_name(static_cast<Resource>(r)), pools_[i].reservation[r]));
    }
  }

  // Children lists by counting: slot 0 for the top level, slot i + 1 for pool i.
  child_begin_.assign(n + 2, 0);
  for (const Pool& p : pools_) ++child_begin_[static_cast<std::size_t>(p.parent + 1) + 1];
  for (std::size_t s = 1; s < child_begin_.size(); ++s) child_begin_[s] += child_begin_[s - 1];
  child_.resize(n);
  std::vector<std::size_t> next(child_begin_.begin(), child_begin_.end() - 1);
  for (std::size_t i = 0; i < n; ++i)
    child_[next[static_cast<std::size_t>(pools_[i].parent + 1)]++] = static_cast<std::int32_t>(i);
}

}  // namespace schedlab::pools
