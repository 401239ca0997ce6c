// Parts without effect in their combination, rule by rule: each named when it can do
// nothing, and not named when another part gives it something to do.
#include <doctest/doctest.h>

#include "../support/sim_harness.h"
#include "sched/part_effects.h"

using namespace schedlab;
using namespace schedlab::testing;

namespace {
sched::SchedulerConfig config_of(std::string queue, std::string preemption, std::string backfill = "none") {
  sched::SchedulerConfig c;
  c.queue = std::move(queue);
  c.preemption = std::move(preemption);
  c.backfill = std::move(backfill);
  return c;
}
bool names(const std::vector<std::string>& said, const std::string& text) {
  for (const auto& s : said)
    if (s.find(text) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST_CASE("Sched.PartEffects.run_time_keys_need_preemption") {
  const auto catalog = small_catalog();
  cluster::Topology topo(hetero_cluster(), catalog);
  struct Case {
    const char* queue;
    const char* preemption;
    bool failures;
    const char* expected;  // "" = nothing said
  };
  const Case cases[] = {
      {"las", "none", false, "scheduler.queue: las with preemption: none orders waiting jobs as fifo"},
      {"gittins", "none", false, "scheduler.queue: gittins with preemption: none orders waiting jobs as fifo"},
      {"srtf", "none", false, "orders waiting jobs as sjf by the traced duration"},
      {"las", "pool-reclaim", false, "(only jobs stopped by pool reclaims and waiting again differ)"},
      {"las", "none", true, "(only jobs stopped by failures and waiting again differ)"},
      {"las", "reorder", false, ""},
      {"srtf", "priority", false, ""},
      {"fifo", "none", false, ""},
      {"sjf", "none", false, ""},
      {"ftf", "none", false, ""},
      {"fair-share", "none", false, ""},
  };
  for (const auto& c : cases) {
    CAPTURE(c.queue);
    CAPTURE(c.preemption);
    const auto said = sched::parts_without_effect(config_of(c.queue, c.preemption), topo, {c.failures});
    if (*c.expected) {
      REQUIRE(said.size() == 1);
      CHECK(names(said, c.expected));
      CHECK(names(said, "scheduler.preemption: reorder"));
    } else {
      CHECK(said.empty());
    }
  }
}

TEST_CASE("Sched.PartEffects.promote_after_without_reorder") {
  const auto catalog = small_catalog();  // the topology points at it
  cluster::Topology topo(hetero_cluster(), catalog);
  auto c = config_of("las", "none");
  c.args["las"] = sched::PartArgs{{"promote_after", "4"}};
  auto said = sched::parts_without_effect(c, topo, {});
  CHECK(said.size() == 2);
  CHECK(names(said, "scheduler.args.las.promote_after"));
  CHECK(names(said, "no job waits again after running, so it has no effect"));
  c.preemption = "reorder";
  CHECK(sched::parts_without_effect(c, topo, {}).empty());
  c.args["las"] = sched::PartArgs{{"promote_after", "0"}};  // off: nothing to say
  c.preemption = "none";
  CHECK(sched::parts_without_effect(c, topo, {}).size() == 1);
}

TEST_CASE("Sched.PartEffects.fifo_keys_never_outrank_without_backfill") {
  const auto catalog = small_catalog();  // the topology points at it
  cluster::Topology topo(hetero_cluster(), catalog);
  CHECK(names(sched::parts_without_effect(config_of("fifo", "reorder"), topo, {}),
              "scheduler.preemption: reorder under queue fifo and backfill none never stops a job"));
  CHECK(sched::parts_without_effect(config_of("fifo", "reorder", "easy"), topo, {}).empty());
  CHECK(sched::parts_without_effect(config_of("fifo", "reorder"), topo, {true}).empty());
  auto pools = config_of("fifo", "priority");
  pools.admission = {"gang", "pools"};
  CHECK(sched::parts_without_effect(pools, topo, {}).empty());
}

TEST_CASE("Sched.PartEffects.same_generation_on_one_generation") {
  auto c = config_of("fifo", "none");
  c.filters = {"gpu-model", "same-generation"};
  const auto catalog = small_catalog();  // the topologies point at it
  cluster::Topology one(uniform_cluster(1, 2, 4, kA100), catalog);
  const auto said = sched::parts_without_effect(c, one, {});
  REQUIRE(said.size() == 1);
  CHECK(said[0] == "scheduler.filters: same-generation has no effect: every GPU of cluster 'uniform' is of generation 80");
  cluster::Topology mixed(hetero_cluster(), catalog);
  CHECK(sched::parts_without_effect(c, mixed, {}).empty());
}

TEST_CASE("Sched.PartEffects.backfill_under_redecide") {
  const auto catalog = small_catalog();  // the topology points at it
  cluster::Topology topo(hetero_cluster(), catalog);
  auto c = config_of("las", "reorder", "easy");
  CHECK(sched::parts_without_effect(c, topo, {}).empty());  // pass: evict (default): backfill runs
  c.args["reorder"] = sched::PartArgs{{"pass", "redecide"}};
  auto said = sched::parts_without_effect(c, topo, {});
  CHECK(said.size() == 1);
  CHECK(names(said, "scheduler.backfill: easy has no effect under scheduler.args.reorder.pass: redecide"));
  c.backfill = "none";
  CHECK(sched::parts_without_effect(c, topo, {}).empty());
}

TEST_CASE("Sched.PartEffects.parts_a_decision_policy_replaces") {
  const auto catalog = small_catalog();
  cluster::Topology topo(hetero_cluster(), catalog);
  // The passes' defaults: nothing to say.
  auto c = config_of("fifo", "none");
  c.policy = "sia";
  CHECK(sched::parts_without_effect(c, topo, {}).empty());
  // Each part the policy replaces is named, in one line.
  c = config_of("las", "reorder", "easy");
  c.policy = "optimus";
  const auto said = sched::parts_without_effect(c, topo, {});
  REQUIRE(said.size() == 1);
  CHECK(names(said, "scheduler.queue: las, scheduler.backfill: easy, scheduler.preemption: reorder have no effect "
                    "under scheduler.policy: optimus"));
  c = config_of("fifo", "priority");
  c.policy = "gavel-max-min-fairness";
  CHECK(names(sched::parts_without_effect(c, topo, {}), "scheduler.preemption: priority has no effect"));
  // Without a policy the same parts are the passes' own.
  c.policy.clear();
  CHECK(!names(sched::parts_without_effect(c, topo, {}), "under scheduler.policy"));
}
