// Small schedules worked out by hand: who holds which GPUs when, under gang vs incremental
// admission, strict order vs EASY backfill, and first-fit vs best-fit vs rack-pack vs
// spread. Each case's timeline is in the comment above it; the test asserts it exactly.
#include <doctest/doctest.h>

#include "../support/sim_harness.h"

using namespace schedlab;
using namespace schedlab::testing;

// Case A: one rack, hosts h0 and h1 of 4 GPUs (8 GPUs).
//   J0  t=0   1 x 4 GPUs  10 s
//   J1  t=0   1 x 2 GPUs  100 s
//   J2  t=20  1 x 2 GPUs  100 s
//   J3  t=30  1 x 4 GPUs  50 s
// J0 takes h0 and J1 takes h1 (2 of 4) under every policy. At t=10 J0 ends: h0 has 4 free,
// h1 has 2 free. At t=20 J2 needs 2:
//   first-fit: the lowest host with room, h0 -> h0 2 free, h1 2 free. J3 (4 GPUs) fits
//              nowhere at t=30; at t=100 J1 ends, h1 is empty, J3 runs on h1 100..150.
//   best-fit:  the host left with fewest idle GPUs, h1 -> h0 4 free, h1 full. J3 runs on
//              h0 at once, 30..80.
//   rack-pack: one host, the tightest: h1, as best-fit -> J3 at 30 on h0.
//   spread:    the emptiest host, h0, as first-fit -> J3 at 100 on h1.
TEST_CASE("Sim.HandWorked.best_fit_keeps_a_whole_host_free_where_first_fit_splits_it") {
  const std::vector<JobRow> jobs = {
      {0, 10, 1, 4}, {0, 100, 1, 2}, {20, 100, 1, 2}, {30, 50, 1, 4}};
  struct Case {
    const char* placement;
    const char* j2_where;
    double j3_start;
    const char* j3_where;
  };
  const Case cases[] = {
      {"first-fit", "h0:2", 100, "h1:4"},
      {"best-fit", "h1:2", 30, "h0:4"},
      {"rack-pack", "h1:2", 30, "h0:4"},
      {"spread", "h0:2", 100, "h1:4"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.placement);
    SimRun r(uniform_cluster(1, 2, 4), scheduler_config(c.placement), jobs);
    CHECK(r.where(0) == "h0:4");
    CHECK(r.where(1) == "h1:2");
    CHECK(r.start_s(0) == 0);
    CHECK(r.start_s(1) == 0);
    CHECK(r.start_s(2) == 20);
    CHECK(r.where(2) == c.j2_where);
    CHECK(r.start_s(3) == c.j3_start);
    CHECK(r.where(3) == c.j3_where);
    CHECK(r.end_s(3) == c.j3_start + 50);
  }
}

// Case B: hosts h0 and h1 of 4 GPUs (8 GPUs), best-fit.
//   J0  t=0   1 x 4 GPUs      100 s
//   J1  t=0   3 x 2 GPUs      50 s   (a gang: 6 GPUs)
//   J2  t=10  1 x 2 GPUs      30 s
// gang, no backfill: J0 takes h0. J1 needs 6, 4 are free: it waits and blocks J2.
//   t=100 J0 ends; J1 takes h0 (2 tasks) and h1 (1 task), 100..150; J2 takes the last 2
//   GPUs of h1, 100..130.
// incremental, no backfill: J0 takes h0. J1 starts 2 of its tasks on h1 at once (run a,
//   0..50); its third task waits and blocks J2. At t=50 run a ends; the third task starts
//   on h1 (50..100), and J2 takes the other 2 GPUs of h1 (50..80). J1 began at 0 and ends
//   with its last run at 100.
// gang, EASY backfill: J1 is blocked with a reservation at t=100 (when J0 ends, 8 GPUs are
//   free) with 2 spare. J2 ends at 10 + 30 = 40 <= 100, so it runs at once on h1 (10..40).
//   J1 runs 100..150.
TEST_CASE("Sim.HandWorked.gang_vs_incremental_vs_easy_backfill") {
  const std::vector<JobRow> jobs = {{0, 100, 1, 4}, {0, 50, 3, 2}, {10, 30, 1, 2}};
  struct Case {
    const char* admission;
    const char* backfill;
    double j1_start, j1_end, j2_start;
    std::size_t j1_runs;
  };
  const Case cases[] = {
      {"gang", "none", 100, 150, 100, 1},
      {"incremental", "none", 0, 100, 50, 2},
      {"gang", "easy", 100, 150, 10, 1},
  };
  for (const auto& c : cases) {
    CAPTURE(c.admission);
    CAPTURE(c.backfill);
    SimRun r(uniform_cluster(1, 2, 4), scheduler_config("best-fit", {c.admission}, {"gpu-model"}, c.backfill), jobs);
    CHECK(r.start_s(0) == 0);
    CHECK(r.end_s(0) == 100);
    CHECK(r.start_s(1) == c.j1_start);
    CHECK(r.end_s(1) == c.j1_end);
    CHECK(r.job(1).starts.size() == c.j1_runs);
    CHECK(r.start_s(2) == c.j2_start);
    CHECK(r.end_s(2) == c.j2_start + 30);
    // What the results files say agrees with what happened.
    const auto& rec = r.collector.jobs();
    CHECK(engine::to_seconds(rec[1].start) == c.j1_start);
    CHECK(engine::to_seconds(rec[1].end) == c.j1_end);
  }
  SUBCASE("incremental runs of J1, GPU by GPU") {
    SimRun r(uniform_cluster(1, 2, 4), scheduler_config("best-fit", {"incremental"}), jobs);
    REQUIRE(r.job(1).placements.size() == 2);
    CHECK(r.job(1).placements[0].describe() == "h1:4");  // two tasks of 2 on h1
    CHECK(r.job(1).placements[1].describe() == "h1:2");
    CHECK(engine::to_seconds(r.job(1).starts[1]) == 50);
    CHECK(r.where(2) == "h1:2");
  }
}

// Case C: two racks, r0 = {h0, h1}, r1 = {h2, h3}, 4 GPUs each (16 GPUs).
//   J0  t=0  1 x 3 GPUs  100 s
//   J1  t=1  2 x 1 GPU   100 s  (gang)
//   J2  t=2  1 x 4 GPUs  100 s
//   J3  t=3  1 x 4 GPUs  100 s
//   J4  t=4  1 x 3 GPUs  10 s
// J0 takes 3 GPUs of h0 everywhere (h0: 1 free).
//   first-fit: J1's tasks on the lowest hosts with room: h0 (its last GPU) and h1 -> h0 full,
//              h1 3 free. J2 -> h2, J3 -> h3. J4 fits h1 at once: 4..14.
//   best-fit:  task 1 on the tightest host, h0 (1 free); task 2 then on h1 (all others have
//              4) -> the same as first-fit; J4 at 4 on h1.
//   rack-pack: J1 fits on one host: the tightest with 2 free is h1 -> h0 1 free, h1 2 free.
//              J2 -> h2, J3 -> h3. J4 needs 3 on one host: none has; it waits until J0 ends
//              at t=100 and runs on h0, 100..110.
TEST_CASE("Sim.HandWorked.rack_pack_keeps_a_gang_on_one_host_at_a_cost") {
  const std::vector<JobRow> jobs = {
      {0, 100, 1, 3}, {1, 100, 2, 1}, {2, 100, 1, 4}, {3, 100, 1, 4}, {4, 10, 1, 3}};
  struct Case {
    const char* placement;
    const char* j1_where;
    double j4_start;
    const char* j4_where;
  };
  const Case cases[] = {
      {"first-fit", "h0:1+h1:1", 4, "h1:3"},
      {"best-fit", "h0:1+h1:1", 4, "h1:3"},
      {"rack-pack", "h1:2", 100, "h0:3"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.placement);
    SimRun r(uniform_cluster(2, 2, 4), scheduler_config(c.placement), jobs);
    CHECK(r.where(0) == "h0:3");
    CHECK(r.where(1) == c.j1_where);
    CHECK(r.where(2) == "h2:4");
    CHECK(r.where(3) == "h3:4");
    for (workload::JobId j = 0; j < 4; ++j) CHECK(r.start_s(j) == j);
    CHECK(r.start_s(4) == c.j4_start);
    CHECK(r.where(4) == c.j4_where);
    CHECK(r.end_s(4) == c.j4_start + 10);
  }
}

// Case D: shares on one host of 2 GPUs, best-fit.
//   J0  t=0  0.5 GPU  100 s    -> opens GPU slot 0 (500)
//   J1  t=0  0.3 GPU   50 s    -> the fullest shared GPU with room: slot 0 (800)
//   J2  t=0  0.6 GPU  100 s    -> slot 0 has no room: opens slot 1 (600)
//   J3  t=0  0.5 GPU   10 s    -> no room anywhere (800, 600, no free GPU): waits
// At t=50 J1 ends, slot 0 is back to 500, and J3 fills it to 1000: 50..60.
TEST_CASE("Sim.HandWorked.gpu_shares_pack_onto_the_fullest_gpu") {
  const std::vector<JobRow> jobs = {
      {0, 100, 1, 1, 500}, {0, 50, 1, 1, 300}, {0, 100, 1, 1, 600}, {0, 10, 1, 1, 500}};
  SimRun r(uniform_cluster(1, 1, 2), scheduler_config("best-fit"), jobs);
  const std::uint16_t expected_slot[] = {0, 0, 1, 0};
  const double expected_start[] = {0, 0, 0, 50};
  for (workload::JobId j = 0; j < 4; ++j) {
    CAPTURE(j);
    REQUIRE(r.job(j).placements.size() == 1);
    CHECK(r.job(j).placements[0].tasks[0].share_slot == expected_slot[j]);
    CHECK(r.start_s(j) == expected_start[j]);
  }
  CHECK(r.end_s(3) == 60);
  // 0.5 x 100 + 0.3 x 50 + 0.6 x 100 + 0.5 x 10 GPU-seconds.
  CHECK(r.collector.run_gpu_seconds() == doctest::Approx(130.0));
  CHECK(r.collector.integral_gpu_seconds() == doctest::Approx(130.0));
}
