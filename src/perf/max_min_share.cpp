// Progressive filling (Bertsekas & Gallager, Data Networks, §6.5.2) over weighted flows.
#include "perf/max_min_share.h"

#include <algorithm>
#include <limits>

namespace schedlab::perf {

std::vector<double> max_min_rates(const std::vector<double>& capacity, const std::vector<FairFlow>& flows) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> rate(flows.size(), 0.0);
  std::vector<double> left(capacity.size());
  for (std::size_t l = 0; l < capacity.size(); ++l) left[l] = capacity[l] > 0 ? capacity[l] : inf;
  // The unfrozen flows in index order: each round walks only them (a round freezes at least one),
  // and sums in the same order as a walk over all flows would, so the rates are the same bits.
  std::vector<std::uint32_t> live(flows.size());
  for (std::size_t f = 0; f < flows.size(); ++f) live[f] = static_cast<std::uint32_t>(f);
  std::vector<double> weight(capacity.size());
  while (!live.empty()) {
    // Sum of weights of active flows per link, then the largest common increment.
    std::fill(weight.begin(), weight.end(), 0.0);
    for (auto f : live)
      for (const auto& [l, w] : flows[f].links) weight[l] += w;
    double step = inf;
    for (auto f : live) step = std::min(step, flows[f].cap - rate[f]);
    for (std::size_t l = 0; l < left.size(); ++l)
      if (weight[l] > 0 && left[l] < inf) step = std::min(step, left[l] / weight[l]);
    step = std::max(step, 0.0);
    for (auto f : live) rate[f] += step;
    for (std::size_t l = 0; l < left.size(); ++l)
      if (weight[l] > 0 && left[l] < inf) left[l] -= step * weight[l];
    // Freeze flows at their cap or on a full link (relative tolerance for rounding).
    const std::size_t before = live.size();
    std::erase_if(live, [&](std::uint32_t f) {
      if (rate[f] >= flows[f].cap * (1 - 1e-12)) return true;
      for (const auto& [l, w] : flows[f].links)
        if (w > 0 && left[l] < inf && left[l] <= 1e-12 * std::max(1.0, capacity[l])) return true;
      return false;
    });
    if (live.size() == before) break;  // cannot happen with positive caps; guards against a stall
  }
  return rate;
}

}  // namespace schedlab::perf
