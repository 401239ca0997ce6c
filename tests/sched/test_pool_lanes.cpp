// Pool lanes: which waiting jobs admission pools refuses, by lane, without asking about each
// (PoolLanes::refusals), and a start pass that passes over them with the same outcome as one
// that asks: a pool at its bound is passed over while another pool's job starts, and a gang
// that needs more GPUs than are free still blocks the jobs behind it, its pool refusing it or not.
#include <doctest/doctest.h>

#include "../support/pool_fixtures.h"
#include "../support/sim_harness.h"
#include "pools/pool_book.h"
#include "sched/pool_lanes.h"

using namespace schedlab;
using namespace schedlab::testing;

namespace {
workload::JobSpec job_of(workload::JobId id, std::uint32_t tasks, std::uint32_t gpus, bool preemptible) {
  workload::JobSpec s;
  s.id = id;
  s.tasks = tasks;
  s.gpus_per_task = gpus;
  s.gang = true;
  s.preemptible = preemptible;
  return s;
}
}  // namespace

// Pool a reserves 4 GPUs and holds 3; b holds none and a job of it waits for 2. Jobs that are not preemptible are held
// to a's reservation.
TEST_CASE("Sched.PoolLanes.a_lane_refuses_from_the_least_amount_its_pool_cannot_take") {
  pools::PoolsConfig config;
  config.enabled = true;
  config.pools = {reserved_pool("a", 4), reserved_pool("b", 4)};
  pools::PoolBook book(config, pools::Amounts{8, 100, 100});
  const auto running = job_of(1, 1, 3, false);
  book.assign(running.id, 0);
  book.waiting(running, 1);
  book.started(running, 1);
  const auto waiting_in_b = job_of(3, 1, 2, true);
  book.assign(waiting_in_b.id, 1);
  book.waiting(waiting_in_b, 1);
  book.recompute(pools::Amounts{8, 100, 100});

  const auto a_held = sched::PoolLanes::lane_of(book, 0, job_of(2, 1, 1, false));
  const auto a_elastic = sched::PoolLanes::lane_of(book, 0, job_of(2, 1, 1, true));
  const auto b_elastic = sched::PoolLanes::lane_of(book, 1, job_of(2, 1, 1, true));
  CHECK(a_held != a_elastic);
  CHECK(sched::PoolLanes::lane_of(book, -1, running) == sched::PoolLanes::kNoLane);

  sched::PoolLanes lanes;
  for (double gpus : {4.0, 1.0, 2.0, 2.0}) lanes.add(a_held, gpus);
  lanes.add(b_elastic, 2);
  lanes.add(sched::PoolLanes::kNoLane, 100);  // counted nowhere, refused never
  auto r = lanes.refusals(book);
  CHECK(r.refuses(a_held, 2));  // 3 + 2 > 4
  CHECK(r.refuses(a_held, 4));
  CHECK_FALSE(r.refuses(a_held, 1));  // 3 + 1 fits the reservation
  CHECK((r.closed & sched::PoolLanes::bit(a_held)) == 0);
  CHECK_FALSE(r.refuses(b_elastic, 2));  // within b's entitlement
  CHECK_FALSE(r.refuses(sched::PoolLanes::kNoLane, 100));

  // The 1-GPU job leaves the lane: every job left in it is refused.
  lanes.remove(a_held, 1);
  r = lanes.refusals(book);
  CHECK(r.from[a_held] == 2);
  CHECK((r.closed & sched::PoolLanes::bit(a_held)) != 0);
  // A lane with no jobs refuses none.
  for (double gpus : {4.0, 2.0, 2.0}) lanes.remove(a_held, gpus);
  CHECK((lanes.refusals(book).closed & sched::PoolLanes::bit(a_held)) == 0);
}

// 8 GPUs on one host; pools a and b reserve 4 each, and no job is preemptible, so each pool is
// held to its 4. At 0 s a's job 0 takes 4 GPUs (a is full) and b's job 1 takes 2 (2 are left
// free). At 1 s a's job 2 arrives, then b's job 3 (1 GPU) behind it. Job 2 is refused by its
// pool, which does not block the queue, when the gang admission before it lets it by (it needs
// no more than the 2 free GPUs): job 3 starts at 1 s. A gang of 4 GPUs is refused by the gang
// admission first, which blocks: job 3 waits until job 0 ends at 100 s, with or without the lanes
// (here as in a walk that asks every job).
TEST_CASE("Sched.PoolLanes.a_full_pool_is_passed_over_but_a_gang_refused_first_still_blocks") {
  const struct {
    const char* what;
    std::uint32_t tasks_of_job_2;
    std::vector<std::string> admission;
    double job_3_starts;
  } cases[] = {
      {"job 2 refused by its pool only", 1, {"gang", "pools"}, 1},
      {"job 2 refused by the gang admission first", 2, {"gang", "pools"}, 100},
      {"job 2 refused by its pool first", 2, {"pools", "gang"}, 1},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    auto pools = production_and_research();
    pools.pools = {reserved_pool("a", 4), reserved_pool("b", 4)};
    std::vector<JobRow> rows = {JobRow(0, 100, 1, 4), JobRow(0, 100, 1, 2), JobRow(1, 100, c.tasks_of_job_2, 2),
                                JobRow(1, 100, 1, 1)};
    const char* pool_of[] = {"a", "b", "a", "b"};
    for (std::size_t i = 0; i < rows.size(); ++i) {
      rows[i].pool = pool_of[i];
      rows[i].preemptible = false;
    }
    SimOptions options;
    options.pools = &pools;
    SimRun run(uniform_cluster(1, 1, 8), scheduler_config("best-fit", c.admission), rows, options);
    CHECK(run.start_s(0) == 0);
    CHECK(run.start_s(1) == 0);
    CHECK(run.start_s(2) == 100);
    CHECK(run.start_s(3) == c.job_3_starts);
  }
}
