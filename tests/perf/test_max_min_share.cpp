// max_min_rates against the plain progressive filling it replaces (every flow and link walked
// each round): the same rates to the bit, on random shared-link layouts.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "perf/max_min_share.h"

using schedlab::perf::FairFlow;
using schedlab::perf::max_min_rates;

namespace {

std::vector<double> plain_filling(const std::vector<double>& capacity, const std::vector<FairFlow>& flows) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> rate(flows.size(), 0.0);
  std::vector<double> left(capacity.size());
  for (std::size_t l = 0; l < capacity.size(); ++l) left[l] = capacity[l] > 0 ? capacity[l] : inf;
  std::vector<std::uint32_t> live(flows.size());
  for (std::size_t f = 0; f < flows.size(); ++f) live[f] = static_cast<std::uint32_t>(f);
  std::vector<double> weight(capacity.size());
  while (!live.empty()) {
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
    const std::size_t before = live.size();
    std::erase_if(live, [&](std::uint32_t f) {
      if (rate[f] >= flows[f].cap * (1 - 1e-12)) return true;
      for (const auto& [l, w] : flows[f].links)
        if (w > 0 && left[l] < inf && left[l] <= 1e-12 * std::max(1.0, capacity[l])) return true;
      return false;
    });
    if (live.size() == before) break;
  }
  return rate;
}

}  // namespace

TEST_CASE("Perf.MaxMinShare.same_bits_as_plain_filling") {
  std::mt19937_64 rng(7);
  auto uniform = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); };
  auto below = [&](std::uint64_t n) { return static_cast<std::uint32_t>(rng() % n); };
  for (int round = 0; round < 400; ++round) {
    // A cluster-like layout (NICs, rack uplinks, a spine) or a free-form one with odd weights.
    const bool cluster = round % 2 == 0;
    const std::uint32_t links = 1 + below(cluster ? 60 : 12);
    std::vector<double> capacity(links);
    for (auto& c : capacity) c = below(8) == 0 ? 0.0 : (cluster ? 25.0 * (1 + below(4)) : uniform(0.5, 100));
    std::vector<FairFlow> flows(below(cluster ? 120 : 20));
    for (auto& f : flows) {
      f.cap = below(10) == 0 ? std::numeric_limits<double>::infinity()
                             : (cluster ? 25.0 * (1 + below(2)) : uniform(0.1, 60));
      const std::uint32_t crossed = below(6);
      for (std::uint32_t k = 0; k < crossed; ++k)
        f.links.emplace_back(below(links), cluster ? static_cast<double>(1 + below(3)) : uniform(0, 3));
    }
    const auto want = plain_filling(capacity, flows);
    const auto got = max_min_rates(capacity, flows);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == want[i]);  // bits, not approximately
  }
}
