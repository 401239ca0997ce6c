// Collective cost formulas on hand-computed numbers, and max-min fair sharing by hand.
#include <doctest/doctest.h>

#include "perf/collective_cost.h"
#include "perf/max_min_share.h"

using namespace schedlab::perf;

namespace {
TierParams link(double alpha_us, double beta_gbps) { return TierParams{alpha_us, beta_gbps, {}}; }
}  // namespace

TEST_CASE("Perf.CollectiveCost.hand_computed") {
  TierParams l = link(1.0, 10.0);  // 10 GB/s = 1e4 bytes per µs
  // Ring: 2(4-1)*1 + 2*3/4 * 1e6/1e4 = 6 + 150.
  CHECK(ring_allreduce_us(4, 1e6, l) == doctest::Approx(156.0));
  // Reduce-scatter: 3*1 + 3/4 * 100 = 78.
  CHECK(ring_reduce_scatter_us(4, 1e6, l) == doctest::Approx(78.0));
  // Tree: 2*ceil(log2 4)*1 + 2*100 = 204; 5 ranks -> depth 3: 6 + 200.
  CHECK(tree_allreduce_us(4, 1e6, l) == doctest::Approx(204.0));
  CHECK(tree_allreduce_us(5, 1e6, l) == doctest::Approx(206.0));
  // One rank: nothing to exchange.
  CHECK(ring_allreduce_us(1, 1e6, l) == 0.0);
  CHECK(tree_allreduce_us(1, 1e6, l) == 0.0);
  // PS, 8 workers, 4 per host, 2 servers, 10 GB/s: worker side 4e6/1e4 = 400, server side
  // 8e6/(2*1e4) = 400 -> (5 + 400) per direction, twice.
  CHECK(parameter_server_us(8, 4, 2, 1e6, 5.0, 10.0, 10.0) == doctest::Approx(810.0));
  // One server: server side 800 dominates.
  CHECK(parameter_server_us(8, 4, 1, 1e6, 5.0, 10.0, 10.0) == doctest::Approx(1610.0));
}

TEST_CASE("Perf.CollectiveCost.correction_applies") {
  TierParams l = link(1.0, 10.0);
  l.corrections = {{1e3, 2.0}, {1e9, 2.0}};
  CHECK(ring_allreduce_us(4, 1e6, l) == doctest::Approx(312.0));
}

TEST_CASE("Perf.MaxMinShare.by_hand") {
  // Link 0: 10 GB/s, link 1: 4 GB/s. A on link 0; B on both; C on link 1.
  // Filling: all rise to 2, link 1 is full (B + C = 4): B, C freeze at 2. A rises until link 0
  // is full: A + 2 = 10 -> A = 8.
  std::vector<double> cap = {10, 4};
  std::vector<FairFlow> flows = {{100, {{0, 1}}}, {100, {{0, 1}, {1, 1}}}, {100, {{1, 1}}}};
  auto r = max_min_rates(cap, flows);
  CHECK(r[0] == doctest::Approx(8));
  CHECK(r[1] == doctest::Approx(2));
  CHECK(r[2] == doctest::Approx(2));

  SUBCASE("a flow's own cap binds first") {
    flows[0].cap = 3;  // A stops at 3; link 0 keeps room
    auto q = max_min_rates(cap, flows);
    CHECK(q[0] == doctest::Approx(3));
    CHECK(q[1] == doctest::Approx(2));
  }
  SUBCASE("weights: a ring crossing the spine twice uses it twice") {
    // Spine 12 GB/s; X crosses it with weight 2, Y with weight 1: 3t = 12 -> t = 4.
    auto q = max_min_rates({12}, {{100, {{0, 2}}}, {100, {{0, 1}}}});
    CHECK(q[0] == doctest::Approx(4));
    CHECK(q[1] == doctest::Approx(4));
  }
  SUBCASE("unlimited links and no sharing") {
    auto q = max_min_rates({0}, {{7, {{0, 1}}}, {9, {}}});
    CHECK(q[0] == doctest::Approx(7));
    CHECK(q[1] == doctest::Approx(9));
  }
}
