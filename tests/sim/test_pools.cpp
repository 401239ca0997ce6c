// Peloton's elastic pools in a run: admission within entitlement, a pool that lends its idle
// reservation and gets it back by reclaim, a non-preemptible pool held to its reservation.
// Hand-worked on 16 GPUs (2 hosts x 8), no checkpoint costs (nothing is lost at a stop).
#include <doctest/doctest.h>

#include "config/pools_config.h"
#include "support/sim_harness.h"
#include "support/pool_fixtures.h"

namespace schedlab::testing {
namespace {

JobRow in_pool(double submit, double duration, std::uint32_t gpus, const std::string& p, std::int32_t priority = 0,
               std::uint32_t tasks = 1) {
  JobRow r(submit, duration, tasks, gpus);
  r.pool = p;
  r.priority = priority;
  return r;
}

sched::SchedulerConfig with(std::vector<std::string> admission, std::string preemption) {
  auto c = scheduler_config("best-fit", std::move(admission));
  c.preemption = std::move(preemption);
  return c;
}

}  // namespace

TEST_CASE("Pools.Run.research_borrows_idle_production_gpus_and_gives_them_back_by_reclaim") {
  const auto pools = production_and_research();
  SimOptions o;
  o.pools = &pools;
  // Four research jobs fill the cluster while production is idle (entitlement at 0 s:
  // research 8 reserved + the 8 nobody demands = 16). Production submits at 100 s; at the
  // recomputation at 120 s it is entitled to its 8, research to 8 while it holds 16: over,
  // so the two research jobs with the shortest run so far (equal: the higher ids, 3 and 2)
  // are reclaimed, and production's jobs start at once.
  SimRun run(uniform_cluster(1, 2, 8), with({"gang", "pools"}, "pool-reclaim"),
             {in_pool(0, 1000, 4, "research"), in_pool(0, 1000, 4, "research"), in_pool(0, 1000, 4, "research"),
              in_pool(0, 1000, 4, "research"), in_pool(100, 1000, 4, "production"),
              in_pool(100, 1000, 4, "production")},
             o);
  CHECK(run.start_s(0) == 0);
  CHECK(run.end_s(0) == 1000);
  CHECK(run.end_s(1) == 1000);
  for (workload::JobId reclaimed : {2u, 3u}) {
    CAPTURE(reclaimed);
    REQUIRE(run.job(reclaimed).starts.size() == 2);
    CHECK(run.job(reclaimed).stop_times.front().first == sec(120));
    // Research is entitled to 8 again, and holds nothing once jobs 0 and 1 end.
    CHECK(run.job(reclaimed).starts[1] == sec(1000));
    CHECK(run.end_s(reclaimed) == 1000 + 880);  // 120 s done before, 880 s left
  }
  CHECK(run.start_s(4) == 120);
  CHECK(run.start_s(5) == 120);
  CHECK(run.end_s(5) == 1120);
  CHECK(run.stats.preemptions == 2);
  CHECK(run.observer.violations() == 0);
}

TEST_CASE("Pools.Run.a_job_waiting_for_its_pools_entitlement_does_not_hold_up_other_pools") {
  const auto pools = production_and_research();
  SimOptions o;
  o.pools = &pools;
  // At 0 s research demands 8: its reservation, and the 8 nobody demands split by share, 4
  // each: research is entitled to 12, production to 4. Production's 8-GPU job (100 s) waits
  // for its entitlement, first in the queue, yet research's 4-GPU job behind it (110 s)
  // starts at once on the free GPUs: a pool's refusal blocks no other pool (strict FIFO
  // otherwise, no backfill). From 120 s production is entitled to 8; it starts when research's
  // short job has freed enough GPUs (210 s).
  SimRun run(uniform_cluster(1, 2, 8), with({"gang", "pools"}, "none"),
             {in_pool(0, 1000, 8, "research"), in_pool(100, 300, 8, "production"), in_pool(110, 100, 4, "research")},
             o);
  CHECK(run.start_s(0) == 0);
  CHECK(run.start_s(2) == 110);
  CHECK(run.start_s(1) == 210);
  CHECK(run.stats.preemptions == 0);
}

TEST_CASE("Pools.Run.a_non_preemptible_pool_starts_only_within_its_reservation") {
  auto pools = production_and_research();
  pools.pools[0].preemptible = false;  // production: 8 GPUs guaranteed, never more
  SimOptions o;
  o.pools = &pools;
  SimRun run(uniform_cluster(1, 2, 8), with({"gang", "pools"}, "pool-reclaim"),
             {in_pool(0, 100, 8, "production"), in_pool(0, 100, 8, "production")}, o);
  // The cluster is idle, but a second 8-GPU production job would go above the reservation.
  CHECK(run.start_s(0) == 0);
  CHECK(run.start_s(1) == 100);
}

}  // namespace schedlab::testing

namespace schedlab::testing {

TEST_CASE("Pools.Run.a_job_above_its_non_preemptible_pools_reservation_is_dropped_at_submit") {
  auto pools = production_and_research();
  pools.pools[0].preemptible = false;
  pools.pools[0].reservation = {4, 0, 0};  // production: 4 GPUs guaranteed, never more
  SimOptions o;
  o.pools = &pools;
  // An 8-GPU production job could never start: it is dropped with the reason, and the
  // research job runs.
  SimRun run(uniform_cluster(1, 2, 8), with({"gang", "pools"}, "pool-reclaim"),
             {in_pool(0, 100, 8, "production"), in_pool(0, 50, 4, "research")}, o);
  CHECK(run.job(0).drops == 1);
  CHECK(run.job(0).drop_reason ==
        "over its pool: needs 8 GPUs, more than pool 'production' may ever hold (its reservation, as it is not "
        "preemptible, is 4)");
  CHECK(run.end_s(1) == 50);
}

TEST_CASE("Pools.Run.a_job_above_its_pools_limit_is_dropped_at_submit_and_does_not_keep_a_rekeying_queue_going") {
  auto pools = production_and_research();
  pools.pools[1].limit[0] = 12;  // research: never more than 12 GPUs
  SimOptions o;
  o.pools = &pools;
  auto c = with({"gang", "pools"}, "pool-reclaim");
  c.queue = "gittins";  // rekeys every period while jobs are active
  SimRun run(uniform_cluster(1, 2, 8), c, {in_pool(0, 100, 8, "research", 0, 2), in_pool(0, 50, 4, "research")}, o);
  CHECK(run.job(0).drops == 1);
  CHECK(run.job(0).drop_reason ==
        "over its pool: needs 16 GPUs, more than pool 'research' may ever hold (its limit is 12)");
  CHECK(run.end_s(1) == 50);
}

TEST_CASE("Pools.Run.without_the_pools_admission_a_limit_drops_nothing") {
  auto pools = production_and_research();
  pools.pools[1].limit[0] = 12;
  SimOptions o;
  o.pools = &pools;
  SimRun run(uniform_cluster(1, 2, 8), with({"gang"}, "none"), {in_pool(0, 100, 8, "research", 0, 2)}, o);
  CHECK(run.end_s(0) == 100);
}

}  // namespace schedlab::testing
