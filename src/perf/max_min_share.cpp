// Progressive filling (Bertsekas & Gallager, Data Networks, §6.5.2) over weighted flows.
#include "perf/max_min_share.h"

#include <algorithm>
#include <limits>

namespace schedlab::perf {

std::vector<double> max_min_rates(const std::vector<double>& capacity, const std::vector<FairFlow>& flows) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> rate(flows.size(), 0.0);
  std::vector<bool> frozen(flows.size(), false);
  std::vector<double> left(capacity.size());
  for (std::size_t l = 0; l < capacity.size(); ++l) left[l] = capacity[l] > 0 ? capacity[l] : inf;
  std::size_t active = flows.size();
  std::vector<double> weight(capacity.size());
  while (active > 0) {
    // Sum of weights of active flows per link, then the largest common increment.
    std::fill(weight.begin(), weight.end(), 0.0);
    for (std::size_t f = 0; f < flows.size(); ++f)
      if (!frozen[f])
        for (const auto& [l, w] : flows[f].links) weight[l] += w;
    double step = inf;
    for (std::size_t f = 0; f < flows.size(); ++f)
      if (!frozen[f]) step = std::min(step, flows[f].cap - rate[f]);
    for (std::size_t l = 0; l < left.size(); ++l)
      if (weight[l] > 0 && left[l] < inf) step = std::min(step, left[l] / weight[l]);
    step = std::max(step, 0.0);
    for (std::size_t f = 0; f < flows.size(); ++f)
      if (!frozen[f]) rate[f] += step;
    for (std::size_t l = 0; l < left.size(); ++l)
      if (weight[l] > 0 && left[l] < inf) left[l] -= step * weight[l];
    // Freeze flows at their cap or on a full link (relative tolerance for rounding).
    std::size_t before = active;
    for (std::size_t f = 0; f < flows.size(); ++f) {
      if (frozen[f]) continue;
      bool stop = rate[f] >= flows[f].cap * (1 - 1e-12);
      for (const auto& [l, w] : flows[f].links)
        if (w > 0 && left[l] < inf && left[l] <= 1e-12 * std::max(1.0, capacity[l])) stop = true;
      if (stop) {
        frozen[f] = true;
        --active;
      }
    }
    if (active == before) break;  // cannot happen with positive caps; guards against a stall
  }
  return rate;
}

}  // namespace schedlab::perf
