// The pools report: one line per pool and resource it has anything of.
#include "pools/pools_report.h"

#include <fmt/format.h>

#include <cmath>

namespace schedlab::pools {

namespace {
std::string num(double v) { return std::isinf(v) ? std::string("-") : fmt::format("{:.1f}", v); }

int depth_of(const PoolTree& tree, std::size_t p) {
  int d = 0;
  for (auto q = tree[p].parent; q >= 0; q = tree[static_cast<std::size_t>(q)].parent) ++d;
  return d;
}
}  // namespace

std::string format_pools_report(const PoolBook& book, engine::Time now) {
  const auto& tree = book.tree();
  std::string out = fmt::format("pools at {:.0f} s (entitlements as of the last period; '-' = no limit)\n",
                                engine::to_seconds(now));
  out += fmt::format("  {:<24} {:<9} {:>11} {:>9} {:>9} {:>11} {:>11} {:>10}\n", "pool", "resource", "reservation",
                     "limit", "demand", "entitlement", "allocation", "pending");
  for (std::size_t p = 0; p < tree.size(); ++p) {
    const auto pool = static_cast<std::int32_t>(p);
    const std::string name = std::string(2 * static_cast<std::size_t>(depth_of(tree, p)), ' ') + tree[p].name +
                             (tree[p].type == ReservationType::fixed ? " (static)" : "");
    for (std::size_t r = 0; r < kResources; ++r) {
      const double held = book.allocation(pool)[r], waits = book.pending(pool)[r];
      const double demand = std::min(held + waits, tree[p].limit[r]);
      // GPUs always; CPUs and memory where the pool reserves, holds or asks for any.
      if (r > 0 && tree[p].reservation[r] == 0 && held == 0 && waits == 0) continue;
      out += fmt::format("  {:<24} {:<9} {:>11} {:>9} {:>9} {:>11} {:>11} {:>10}\n", r == 0 ? name : "",
                         resource_name(static_cast<Resource>(r)), num(tree[p].reservation[r]),
                         num(tree[p].limit[r]), num(demand), num(book.entitlement(pool)[r]), num(held), num(waits));
    }
  }
  return out;
}

}  // namespace schedlab::pools
