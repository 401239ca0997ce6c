// The scenario's `pools:` section (config/pools_config.h): the tree and its numbers, how jobs
// find their pools, and every inconsistency refused at its line.
#include <doctest/doctest.h>

#include <cmath>

#include "../support/input_errors.h"
#include "config/scenario.h"
#include "pools/pool_assigner.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::testing;
using namespace schedlab::config;

TEST_CASE("Config.Pools.reads_the_tree_the_rules_and_the_periods") {
  const Scenario sc = load_scenario(fixture("scenarios/pools/three_pools.yaml"));
  const auto& p = sc.pools;
  REQUIRE(p.enabled);
  CHECK(p.period == 120 * engine::kMicrosPerSecond);
  CHECK(p.sustained_periods == 3);
  CHECK(p.default_pool == "services");
  REQUIRE(p.pools.size() == 5);  // in order: parents before children
  const auto& prod = p.pools[static_cast<std::size_t>(p.find("production"))];
  CHECK(prod.static_reservation);
  CHECK_FALSE(prod.preemptible);
  CHECK(prod.reservation[0] == 8);
  CHECK(std::isinf(prod.limit[0]));
  const auto& research = p.pools[static_cast<std::size_t>(p.find("research"))];
  CHECK_FALSE(research.leaf);
  CHECK(research.reservation == pools::PoolAmounts{4, 8, 0});
  CHECK(research.limit[0] == 12);
  CHECK(research.share == pools::PoolAmounts{2, 2, 2});  // one number: every resource
  const auto& b = p.pools[static_cast<std::size_t>(p.find("team-b"))];
  CHECK(b.parent == p.find("research"));
  CHECK(b.limit[0] == 6);
  REQUIRE(p.rules.size() == 3);
  CHECK(p.rules[0].on == pools::PoolRule::On::user);
  CHECK(p.rules[1].prefix == "res");
  CHECK(p.rules[2].spread == std::vector<std::string>{"team-a", "team-b"});
}

TEST_CASE("Config.Pools.a_job_finds_its_pool_by_the_first_rule_that_matches") {
  const Scenario sc = load_scenario(fixture("scenarios/pools/three_pools.yaml"));
  pools::PoolAssigner assign(sc.pools, sc.seed);
  workload::StringPool strings;
  auto job = [&](const std::string& user, const std::string& label) {
    workload::JobSpec j;
    j.user = strings.intern(user);
    j.pool = strings.intern(label);
    return j;
  };
  CHECK(assign.pool_of(job("alice", "research-vc"), strings, "t.csv") == sc.pools.find("production"));
  CHECK(assign.pool_of(job("bob", "research-vc"), strings, "t.csv") == sc.pools.find("team-a"));
  // A spread rule deals users over its pools, the same way every time (the seed decides).
  const auto carol = assign.pool_of(job("carol", ""), strings, "t.csv");
  CHECK((carol == sc.pools.find("team-a") || carol == sc.pools.find("team-b")));
  pools::PoolAssigner again(sc.pools, sc.seed);
  CHECK(again.pool_of(job("carol", ""), strings, "t.csv") == carol);
  int to_b = 0;
  for (int u = 0; u < 100; ++u)
    to_b += assign.pool_of(job("user" + std::to_string(u), ""), strings, "t.csv") == sc.pools.find("team-b");
  CHECK(to_b > 30);  // both pools get users
  CHECK(to_b < 70);
}

TEST_CASE("Config.Pools.a_job_with_no_pool_is_an_error_at_its_trace_line") {
  Scenario sc = load_scenario(fixture("scenarios/pools/three_pools.yaml"));
  sc.pools.rules.clear();
  sc.pools.default_pool.clear();
  pools::PoolAssigner assign(sc.pools, sc.seed);
  workload::StringPool strings;
  workload::JobSpec j;
  j.pool = strings.intern("servces");
  j.line = 17;
  const auto e = input_error_of([&] { assign.pool_of(j, strings, "trace.csv"); });
  CHECK(e.file() == "trace.csv");
  CHECK(e.line() == 17);
  CHECK(e.field() == "pool");
  CHECK(says(e, "'servces' matches no rule"));
  CHECK(says(e, "closest: 'services'"));
  j.pool = strings.intern("services");  // the trace's column naming a pool is enough
  CHECK(assign.pool_of(j, strings, "trace.csv") == sc.pools.find("services"));
}

TEST_CASE("Config.Pools.inconsistent_pools_are_refused_at_their_line") {
  const Located cases[] = {
      {"scenarios/pools/reserve_too_much.yaml", 12, "pools.tree.research.reservation",
       "the top-level pools reserve 20 GPUs up to here, more than the cluster's 16 GPUs"},
      {"scenarios/pools/limit_below_reservation.yaml", 12, "pools.tree.0.limit.gpus",
       "2 GPUs is below the reservation (4 GPUs)"},
      {"scenarios/pools/unknown_pool.yaml", 11, "pools.assign.0.pool", "'reserch' is not a pool (closest: 'research')"},
      {"scenarios/pools/children_above_parent.yaml", 14, "pools.tree.0.children.1.reservation",
       "the pools under 'research' reserve 6 GPUs, more than its own reservation of 4 GPUs"},
      {"scenarios/pools/admission_without_pools.yaml", 8, "scheduler.admission",
       "admission 'pools' needs a pools: section"},
      {"scenarios/pools/inner_pool_for_jobs.yaml", 8, "pools.default", "'research' has pools under it"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.file);
    check_located(input_error_of([&] { load_scenario(fixture(c.file)); }), c);
  }
}

TEST_CASE("Config.Pools.a_spread_rule_on_jobs_deals_jobs_with_neither_user_nor_pool") {
  Scenario sc = load_scenario(fixture("scenarios/pools/three_pools.yaml"));
  pools::PoolRule by_job;
  by_job.on = pools::PoolRule::On::job;
  by_job.spread = {"team-a", "team-b"};
  sc.pools.rules = {by_job};
  pools::PoolAssigner assign(sc.pools, sc.seed);
  workload::StringPool strings;
  int to_a = 0;
  for (std::uint64_t n = 0; n < 100; ++n) {
    workload::JobSpec j;
    j.trace_number = n;
    const auto p = assign.pool_of(j, strings, "t.csv");
    CHECK((p == sc.pools.find("team-a") || p == sc.pools.find("team-b")));
    CHECK(assign.pool_of(j, strings, "t.csv") == p);  // the same job, the same pool
    to_a += p == sc.pools.find("team-a");
  }
  CHECK(to_a > 30);
  CHECK(to_a < 70);
}
