// Entitlement, worked by hand on small trees, then its guarantees checked on random ones.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "pools/entitlement.h"

using namespace schedlab::pools;

namespace {

Amounts gpus(double n) { return {n, 0, 0}; }

// A leaf whose jobs hold and wait for GPUs only.
PoolUsage gpu_usage(double allocated, double pending) {
  return {.allocation = gpus(allocated), .pending = gpus(pending)};
}

// "10 40 50": each pool's entitlement of one resource, rounded to 1e-9 so that numbers
// worked by hand compare exactly.
std::string entitled(const std::vector<Amounts>& e, Resource r = Resource::gpus) {
  std::string text;
  for (const Amounts& a : e) {
    if (!text.empty()) text += ' ';
    text += fmt::format("{}", std::round(a[static_cast<std::size_t>(r)] * 1e9) / 1e9);
  }
  return text;
}

}  // namespace

TEST_CASE("Pools.Entitlement.unused_reservation_goes_to_pools_that_want_more") {
  // Capacity 100. Reservations 30/30/40, demands 10 (all running), 50 (20 running + 30
  // pending), 60. Phase 1: min(demand, reservation) = 10/30/40, 20 left. Phase 2: B and C
  // want 20 more each; equal shares, 10 each, neither reaches its demand: 10/40/50.
  const PoolTree tree({{.name = "A", .reservation = gpus(30)},
                       {.name = "B", .reservation = gpus(30)},
                       {.name = "C", .reservation = gpus(40)}});
  const auto e = compute_entitlement(tree, gpus(100), {gpu_usage(10, 0), gpu_usage(20, 30), gpu_usage(0, 60)});
  CHECK(entitled(e) == "10 40 50");
}

TEST_CASE("Pools.Entitlement.what_a_satisfied_pool_cannot_take_goes_round_again") {
  // As above but B wants 32 and C 70. Phase 2, round 1: 20 left, offers 10/10; B needs
  // only 2 (30 -> 32), C takes 10; 8 left. Round 2: only C still wants more, takes 8: 10/32/58.
  const PoolTree tree({{.name = "A", .reservation = gpus(30)},
                       {.name = "B", .reservation = gpus(30)},
                       {.name = "C", .reservation = gpus(40)}});
  const auto e = compute_entitlement(tree, gpus(100), {gpu_usage(10, 0), gpu_usage(0, 32), gpu_usage(0, 70)});
  CHECK(entitled(e) == "10 32 58");
}

TEST_CASE("Pools.Entitlement.demand_is_split_by_share") {
  // Capacity 100, no reservations; A (share 1) and B (share 3) want 100 each: 25/75.
  const PoolTree tree({{.name = "A", .share = {1, 1, 1}}, {.name = "B", .share = {3, 1, 1}}});
  const auto e = compute_entitlement(tree, gpus(100), {gpu_usage(0, 100), gpu_usage(0, 100)});
  CHECK(entitled(e) == "25 75");
}

TEST_CASE("Pools.Entitlement.a_fixed_pool_keeps_its_reservation_an_elastic_one_lends_it") {
  // Capacity 100; S reserves 40 and wants nothing; E reserves 60 and wants 100.
  const std::vector<PoolUsage> usage = {gpu_usage(0, 0), gpu_usage(0, 100)};
  SUBCASE("fixed: phase 1 gives S all 40 and E 60, nothing is left") {
    const PoolTree tree({{.name = "S", .type = ReservationType::fixed, .reservation = gpus(40)},
                         {.name = "E", .reservation = gpus(60)}});
    CHECK(entitled(compute_entitlement(tree, gpus(100), usage)) == "40 60");
  }
  SUBCASE("elastic: phase 1 gives S 0 and E 60; phase 2 gives E the 40 S does not use") {
    const PoolTree tree({{.name = "S", .reservation = gpus(40)}, {.name = "E", .reservation = gpus(60)}});
    CHECK(entitled(compute_entitlement(tree, gpus(100), usage)) == "0 100");
  }
}

TEST_CASE("Pools.Entitlement.a_pool_never_gets_more_than_its_limit") {
  // Capacity 100. A wants 50 but its limit is 20, so its demand is 20; B wants 100.
  // Phase 2, round 1: offers 50/50; A is filled at 20, B takes 50; 30 left. Round 2: B
  // takes 30: 20/80.
  const PoolTree tree({{.name = "A", .limit = {20, kUnlimited, kUnlimited}}, {.name = "B"}});
  const auto e = compute_entitlement(tree, gpus(100), {gpu_usage(0, 50), gpu_usage(0, 100)});
  CHECK(entitled(e) == "20 80");
}

TEST_CASE("Pools.Entitlement.capacity_nobody_wants_is_handed_out_by_share_up_to_limits") {
  // Capacity 100; A wants 10, B 20, C nothing; shares 1/1/2; C's limit is 20.
  // Phases 1 and 2 give 10/20/0 and leave 70. Phase 3, round 1: offers 17.5/17.5/35; C is
  // filled at 20; 70 - 17.5 - 17.5 - 20 = 15 left. Round 2: A and B take 7.5 each: 35/45/20.
  const PoolTree tree(
      {{.name = "A"}, {.name = "B"}, {.name = "C", .limit = {20, kUnlimited, kUnlimited}, .share = {2, 1, 1}}});
  const std::vector<PoolUsage> usage = {gpu_usage(10, 0), gpu_usage(0, 20), gpu_usage(0, 0)};
  CHECK(entitled(compute_entitlement(tree, gpus(100), usage)) == "35 45 20");

  SUBCASE("when every pool is at its limit, the rest stays unassigned") {
    // Limits 10/30/20: 60 of 100 can be held.
    const PoolTree limited({{.name = "A", .limit = {10, kUnlimited, kUnlimited}},
                            {.name = "B", .limit = {30, kUnlimited, kUnlimited}},
                            {.name = "C", .limit = {20, kUnlimited, kUnlimited}, .share = {2, 1, 1}}});
    CHECK(entitled(compute_entitlement(limited, gpus(100), usage)) == "10 30 20");
  }
}

TEST_CASE("Pools.Entitlement.a_pools_entitlement_is_split_among_its_children_by_the_same_rules") {
  // Capacity 100. A (reservation 60) has A1 (reservation 20, wants 50) and A2 (reservation
  // 40, wants 10); B (reservation 40) wants 20.
  // Top level: A's demand is 50 + 10 = 60. Phase 1: A 60, B 20; 20 left. Phase 2: nobody
  // wants more. Phase 3: 10 each: A 70, B 30.
  // Inside A (70): phase 1: A1 20, A2 10; 40 left. Phase 2: A1 wants 30 more and takes it:
  // A2's unused reservation goes to its sibling before anyone else. Phase 3: 10 left, 5
  // each: A1 55, A2 15, which add up to A's 70.
  const PoolTree tree({{.name = "A", .reservation = gpus(60)},
                       {.name = "A1", .parent = 0, .reservation = gpus(20)},
                       {.name = "A2", .parent = 0, .reservation = gpus(40)},
                       {.name = "B", .reservation = gpus(40)}});
  const std::vector<PoolUsage> usage = {{}, gpu_usage(50, 0), gpu_usage(0, 10), gpu_usage(20, 0)};
  CHECK(entitled(compute_entitlement(tree, gpus(100), usage)) == "70 55 15 30");
}

TEST_CASE("Pools.Entitlement.a_fixed_child_makes_its_elastic_parent_ask_for_its_reservation") {
  // Capacity 100. P (elastic, reservation 40) has one child F (fixed, reservation 40, wants
  // nothing); Q wants 100. F's reservation counts as demand, so P's demand is 40 and phase 1
  // gives P 40 (not 0); Q gets the other 60. Inside P, F keeps its 40.
  const PoolTree tree({{.name = "P", .reservation = gpus(40)},
                       {.name = "F", .parent = 0, .type = ReservationType::fixed, .reservation = gpus(40)},
                       {.name = "Q"}});
  const auto e = compute_entitlement(tree, gpus(100), {{}, gpu_usage(0, 0), gpu_usage(0, 100)});
  CHECK(entitled(e) == "40 40 60");
}

TEST_CASE("Pools.Entitlement.an_inner_pool_takes_unclaimed_capacity_only_up_to_its_childrens_limits") {
  // Capacity 100, nobody wants anything. P has no limit of its own but its only child has
  // a limit of 10, so P could hand down no more than 10: P 10 (P1 10), Q 90.
  const PoolTree tree(
      {{.name = "P"}, {.name = "P1", .parent = 0, .limit = {10, kUnlimited, kUnlimited}}, {.name = "Q"}});
  const auto e = compute_entitlement(tree, gpus(100), {{}, {}, {}});
  CHECK(entitled(e) == "10 10 90");
}

TEST_CASE("Pools.Entitlement.reservations_above_capacity_are_scaled_down_alike") {
  // The cluster lost hosts: capacity 45. Phase 1 would give A min(100, 60) = 60, B
  // min(10, 40) = 10 and fixed S its 20: 90 in all. Each is halved (45 / 90): 30/5/10,
  // which add up to the capacity, and phases 2 and 3 have nothing to split.
  const PoolTree tree({{.name = "A", .reservation = gpus(60)},
                       {.name = "B", .reservation = gpus(40)},
                       {.name = "S", .type = ReservationType::fixed, .reservation = gpus(20)}});
  const auto e = compute_entitlement(tree, gpus(45), {gpu_usage(0, 100), gpu_usage(10, 0), gpu_usage(0, 0)});
  CHECK(entitled(e) == "30 5 10");

  SUBCASE("and the children of a pool share what it got the same way") {
    // A (reservation 60, wants 80) has A1 and A2 reserving 30 each; capacity 40 for A and
    // B (reservation 40, wants 40). Top: phase 1 would be 60 + 40 = 100 > 40: A 24, B 16.
    // Inside A: phase 1 would be 30 + 30 = 60 > 24: 12 each.
    const PoolTree nested({{.name = "A", .reservation = gpus(60)},
                           {.name = "A1", .parent = 0, .reservation = gpus(30)},
                           {.name = "A2", .parent = 0, .reservation = gpus(30)},
                           {.name = "B", .reservation = gpus(40)}});
    const auto n = compute_entitlement(nested, gpus(40), {{}, gpu_usage(0, 40), gpu_usage(0, 40), gpu_usage(40, 0)});
    CHECK(entitled(n) == "24 12 12 16");
  }
}

TEST_CASE("Pools.Entitlement.each_resource_is_split_on_its_own") {
  // Capacity 8 GPUs, 64 cores, 256 GiB. A reserves 8 GPUs and wants 8 GPUs, 16 cores,
  // 64 GiB; B reserves 32 cores and 128 GiB, wants 4 GPUs, 48 cores, 200 GiB, and has
  // share 3 for memory.
  // GPUs: phase 1 gives A 8, B 0: nothing left: 8/0.
  // Cores: phase 1 gives A 0, B 32; 32 left; both want 16 more, equal shares: 16/48.
  // Memory: phase 1 gives A 0, B 128; 128 left, offers 32 (A) and 96 (B); B needs only 72,
  // A takes 32; 24 left go to A: 56/200.
  const PoolTree tree(
      {{.name = "A", .reservation = {8, 0, 0}}, {.name = "B", .reservation = {0, 32, 128}, .share = {1, 1, 3}}});
  const std::vector<PoolUsage> usage = {{.allocation = {8, 16, 64}},
                                        {.allocation = {0, 40, 150}, .pending = {4, 8, 50}}};
  const auto e = compute_entitlement(tree, {8, 64, 256}, usage);
  CHECK(entitled(e, Resource::gpus) == "8 0");
  CHECK(entitled(e, Resource::cpus) == "16 48");
  CHECK(entitled(e, Resource::mem) == "56 200");
}

TEST_CASE("Pools.Entitlement.an_inner_pools_demand_comes_from_its_children_not_its_usage") {
  // Capacity 30. P (reservation 10) has one child P1 wanting 4; P's own usage says 1000,
  // which is ignored. Q (reservation 10) wants 30. P's demand is 4. Phase 1: P 4, Q 10; 16
  // left. Phase 2: only Q wants more (20) and takes the 16. Inside P, P1 gets the 4.
  // (Were P's 1000 counted, phase 1 would give P 10 and phase 2 would split 10 as 5/5.)
  const PoolTree tree(
      {{.name = "P", .reservation = gpus(10)}, {.name = "P1", .parent = 0}, {.name = "Q", .reservation = gpus(10)}});
  const auto e = compute_entitlement(tree, gpus(30), {gpu_usage(1000, 0), gpu_usage(0, 4), gpu_usage(0, 30)});
  CHECK(entitled(e) == "4 4 26");
}

TEST_CASE("Pools.Entitlement.bad_usage_and_capacity_are_refused") {
  const PoolTree tree({{.name = "A"}, {.name = "B"}});
  auto error_of = [&](const Amounts& capacity, const std::vector<PoolUsage>& usage) -> std::string {
    try {
      compute_entitlement(tree, capacity, usage);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(error_of(gpus(10), {{}}) == "usage has 1 entries for 2 pools; it needs one per pool, in the tree's order");
  CHECK(error_of({10, -1, 0}, {{}, {}}) == "capacity of cpus is -1; it must be a finite number, at least 0");
  CHECK(error_of({10, 0, kUnlimited}, {{}, {}}) == "capacity of mem is inf; it must be a finite number, at least 0");
  CHECK(error_of(gpus(10), {{}, gpu_usage(0, -2)}) == "pool 'B' (#1): pending of gpus is -2; it must be at least 0");
  CHECK(error_of(gpus(10), {{}, gpu_usage(std::nan(""), 0)}) ==
        "pool 'B' (#1): allocation of gpus is nan; it must be at least 0");
}

TEST_CASE("Pools.Entitlement.a_reused_calculator_gives_the_same_answer_in_the_same_buffer") {
  const PoolTree tree({{.name = "A", .reservation = gpus(30)}, {.name = "B"}});
  const std::vector<PoolUsage> usage = {gpu_usage(0, 50), gpu_usage(0, 50)};
  EntitlementCalculator calculator;
  const std::vector<Amounts> first = calculator.compute(tree, gpus(100), usage);
  const Amounts* buffer = calculator.compute(tree, gpus(100), usage).data();
  CHECK(calculator.compute(tree, gpus(100), usage) == first);
  CHECK(calculator.compute(tree, gpus(100), usage).data() == buffer);
  CHECK(entitled(first) == "50 50");
}

// ---- Guarantees on random trees ---------------------------------------------------------

namespace {

// Draws from std::mt19937's output, which the standard fixes, rather than through
// std::uniform_*_distribution, whose results differ between standard libraries. Whole
// numbers keep sums of reservations exact, so the tree's own checks never trip on rounding.
std::uint32_t draw_below(std::mt19937& rng, std::uint32_t n) { return static_cast<std::uint32_t>(rng() % n); }

struct RandomPools {
  PoolTree tree;
  std::vector<PoolUsage> usage;
  Amounts capacity{};
};

RandomPools random_pools(std::mt19937& rng) {
  const std::uint32_t n = 1 + draw_below(rng, 12);
  std::vector<Pool> pools(n);
  std::vector<Amounts> unreserved(n);  // of each pool, what its children may still reserve
  Amounts top_reserved{};
  for (std::uint32_t i = 0; i < n; ++i) {
    Pool& p = pools[i];
    p.name = fmt::format("p{}", i);
    p.parent = (i == 0 || draw_below(rng, 3) == 0) ? -1 : static_cast<std::int32_t>(draw_below(rng, i));
    p.type = draw_below(rng, 4) == 0 ? ReservationType::fixed : ReservationType::elastic;
    for (std::size_t r = 0; r < kResources; ++r) {
      if (p.parent < 0) {
        p.reservation[r] = draw_below(rng, 3) == 0 ? 0 : draw_below(rng, 50);
        top_reserved[r] += p.reservation[r];
      } else {
        double& room = unreserved[static_cast<std::size_t>(p.parent)][r];
        p.reservation[r] = draw_below(rng, static_cast<std::uint32_t>(room) + 1);
        room -= p.reservation[r];
      }
      unreserved[i][r] = p.reservation[r];
      p.limit[r] = draw_below(rng, 2) == 0 ? kUnlimited : p.reservation[r] + draw_below(rng, 40);
      const double shares[] = {0.5, 1, 2, 3};
      p.share[r] = shares[draw_below(rng, 4)];
    }
  }
  RandomPools out{PoolTree(std::move(pools)), std::vector<PoolUsage>(n), {}};
  for (auto& u : out.usage) {
    for (std::size_t r = 0; r < kResources; ++r) {
      u.allocation[r] = draw_below(rng, 40);
      u.pending[r] = draw_below(rng, 3) == 0 ? 0 : draw_below(rng, 40);
    }
  }
  // From nothing to well above the reservations, so that some trees are over-reserved.
  for (std::size_t r = 0; r < kResources; ++r)
    out.capacity[r] = draw_below(rng, 2 * static_cast<std::uint32_t>(top_reserved[r]) + 60);
  return out;
}

}  // namespace

TEST_CASE("Pools.Entitlement.guarantees_hold_on_random_trees") {
  std::mt19937 rng(20240917);
  EntitlementCalculator reused;
  int trees_with_room = 0;
  for (int t = 0; t < 500; ++t) {
    CAPTURE(t);
    const RandomPools rp = random_pools(rng);
    const PoolTree& tree = rp.tree;
    const std::size_t n = tree.size();
    const std::vector<Amounts> e = compute_entitlement(tree, rp.capacity, rp.usage);
    // The same answer from a calculator that has computed other trees before.
    CHECK(reused.compute(tree, rp.capacity, rp.usage) == e);

    for (std::size_t r = 0; r < kResources; ++r) {
      CAPTURE(r);
      const double tolerance = 1e-9 * std::max(1.0, rp.capacity[r]);
      // Demand as the algorithm states it (children after parents: a backward pass), and
      // what each pool can take: its limit, an inner one no more than its children
      // together, a fixed one at least its reservation.
      std::vector<double> demand(n, 0), can_take(n, 0);
      for (std::size_t i = n; i-- > 0;) {
        const Pool& p = tree[i];
        if (tree.is_leaf(i)) {
          demand[i] = rp.usage[i].allocation[r] + rp.usage[i].pending[r];
          can_take[i] = kUnlimited;
        } else {
          for (const std::int32_t c : tree.children(i)) {
            demand[i] += demand[static_cast<std::size_t>(c)];
            can_take[i] += can_take[static_cast<std::size_t>(c)];
          }
        }
        demand[i] = std::min(demand[i], p.limit[r]);
        can_take[i] = std::min(can_take[i], p.limit[r]);
        if (p.type == ReservationType::fixed) can_take[i] = std::max(can_take[i], p.reservation[r]);
      }

      double top_reserved = 0;
      for (const std::int32_t i : tree.top_level()) top_reserved += tree[static_cast<std::size_t>(i)].reservation[r];
      const bool reservations_fit = top_reserved <= rp.capacity[r];
      trees_with_room += reservations_fit ? 1 : 0;

      // Each level: no more than it splits, and nothing left idle while a pool could take it.
      auto check_level = [&](std::span<const std::int32_t> level, double splits) {
        double sum = 0;
        for (const std::int32_t c : level) sum += e[static_cast<std::size_t>(c)][r];
        CHECK(sum <= splits + tolerance);
        if (sum < splits - tolerance) {
          for (const std::int32_t c : level)
            CHECK(e[static_cast<std::size_t>(c)][r] >= can_take[static_cast<std::size_t>(c)] - tolerance);
        }
      };
      check_level(tree.top_level(), rp.capacity[r]);
      for (std::size_t i = 0; i < n; ++i)
        if (!tree.is_leaf(i)) check_level(tree.children(i), e[i][r]);

      for (std::size_t i = 0; i < n; ++i) {
        CAPTURE(i);
        const Pool& p = tree[i];
        CHECK(std::isfinite(e[i][r]));
        CHECK(e[i][r] >= 0);
        CHECK(e[i][r] <= p.limit[r] + tolerance);
        if (reservations_fit) {
          CHECK(e[i][r] >= std::min(demand[i], p.reservation[r]) - tolerance);
          if (p.type == ReservationType::fixed) CHECK(e[i][r] >= p.reservation[r] - tolerance);
        }
      }
    }
  }
  // The draws cover both cases: reservations that fit and reservations that do not.
  CHECK(trees_with_room > 500);
  CHECK(trees_with_room < 1400);
}
