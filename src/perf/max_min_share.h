// Max-min fair shares of shared links by progressive filling: every unfrozen flow's rate grows
// at the same pace; a flow freezes when it reaches its own cap or when a link it crosses fills.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace schedlab::perf {

struct FairFlow {
  double cap = 0;  // the most the flow can use (its rate when alone), > 0
  // (link index, weight): the flow puts weight × rate on that link (a ring crossing a link twice
  // has weight 2), >= 0. Links with weight 0 are ignored.
  std::vector<std::pair<std::uint32_t, double>> links;
};

// Rates, one per flow, in the order given. Capacities are per link (GB/s); a link's capacity
// <= 0 means unlimited. Deterministic: ties are resolved the same way for the same input.
std::vector<double> max_min_rates(const std::vector<double>& capacity, const std::vector<FairFlow>& flows);

}  // namespace schedlab::perf
