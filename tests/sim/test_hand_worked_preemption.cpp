// Small schedules with preemption and greedy backfill, worked out by hand: who is evicted
// when, where it restarts, and when it ends. The trace perf model runs every job at its
// traced speed, and the default checkpoint interval (0) loses no work, so a preempted job
// ends exactly its duration plus the time it waited after its start. Each case's timeline
// is in the comment above it; the test asserts it exactly.
#include <doctest/doctest.h>

#include "../support/sim_harness.h"

using namespace schedlab;
using namespace schedlab::testing;

namespace {
JobRow row(double submit, double duration, std::uint32_t tasks, std::uint32_t gpus, std::int32_t priority) {
  JobRow r(submit, duration, tasks, gpus);
  r.priority = priority;
  return r;
}

sched::SchedulerConfig policy(const std::string& queue, const std::string& preemption,
                              const std::string& backfill = "none", sched::PartArgs args = {}) {
  auto c = scheduler_config("best-fit", {"gang"}, {"gpu-model"}, backfill);
  c.queue = queue;
  c.preemption = preemption;
  if (!args.empty()) c.args[preemption] = std::move(args);
  return c;
}
}  // namespace

// Case P1: hosts h0, h1 of 4 GPUs (8), priority queue, priority preemption, best-fit.
//   J0  t=0   priority 1  1 x 4 GPUs  30 s
//   J1  t=0   priority 0  2 x 2 GPUs  100 s  (a gang)
//   J2  t=10  priority 2  1 x 4 GPUs  50 s
// t=0: J0 (the better class) takes h0, J1's two tasks take h1. t=10: J2 finds no free GPU;
// it outranks both; the lowest class goes first: J1. Freeing J1's 4 GPUs on h1 lets J2
// place, so J1 is stopped whole (both tasks at t=10) and J2 runs on h1 10..60. t=30: J0
// ends; J1 is placed from scratch, on h0 this time, and has 100 - 10 = 90 s left: 30..120.
TEST_CASE("Sim.HandWorkedPreemption.priority_stops_a_gang_whole_and_it_restarts_elsewhere") {
  const std::vector<JobRow> jobs = {row(0, 30, 1, 4, 1), row(0, 100, 2, 2, 0), row(10, 50, 1, 4, 2)};
  SimRun r(uniform_cluster(1, 2, 4), policy("priority", "priority"), jobs);
  CHECK(r.stats.preemptions == 1);
  CHECK(r.job(0).starts == std::vector<engine::Time>{0});
  CHECK(r.where(0) == "h0:4");
  CHECK(r.end_s(0) == 30);
  CHECK(r.job(1).starts == std::vector<engine::Time>{0, sec(30)});
  REQUIRE(r.job(1).placements.size() == 2);
  CHECK(r.job(1).placements[0].tasks.size() == 2);  // both tasks ran on h1 ...
  CHECK(r.job(1).placements[1].tasks.size() == 2);  // ... and both restart on h0
  CHECK(r.where(1) == "h1:4 h0:4");  // two tasks of 2 GPUs each time
  CHECK(r.end_s(1) == 120);
  CHECK(r.start_s(2) == 10);  // all of h1 free at t=10: both of J1's tasks left at once
  CHECK(r.where(2) == "h1:4");
  CHECK(r.end_s(2) == 60);
  CHECK(r.observer.violations() == 0);
}

// Case P1 with J1 not preemptible: J2 passes over it and stops J0 instead (which it also
// outranks); J0 comes back on h0 when J2 ends at 60 s, with its 10 s of work kept.
TEST_CASE("Sim.HandWorkedPreemption.a_job_that_is_not_preemptible_is_never_a_victim") {
  std::vector<JobRow> jobs = {row(0, 30, 1, 4, 1), row(0, 100, 2, 2, 0), row(10, 50, 1, 4, 2)};
  jobs[1].preemptible = false;
  SimRun r(uniform_cluster(1, 2, 4), policy("priority", "priority"), jobs);
  CHECK(r.stats.preemptions == 1);
  CHECK(r.job(1).starts == std::vector<engine::Time>{0});
  CHECK(r.end_s(1) == 100);
  CHECK(r.job(0).starts == std::vector<engine::Time>{0, sec(60)});
  CHECK(r.end_s(0) == 80);
  CHECK(r.start_s(2) == 10);
  CHECK(r.where(2) == "h0:4");
  CHECK(r.observer.violations() == 0);
}

// Case P2: hosts h0, h1 of 4 GPUs, priority queue, reorder preemption (and priority for
// comparison), with and without min_run_s.
//   J0  t=0   priority 1  1 x 4 GPUs  100 s
//   J1  t=0   priority 0  1 x 4 GPUs  100 s
//   J2  t=10  priority 2  1 x 4 GPUs  20 s
// J0 takes h0, J1 h1. At t=10 the better J2 arrives on a full cluster; the worst running
// job is J1 (priority 0), J0 is kept.
//   min_run_s 0:  J1 evicted at 10 (ran 10 s); J2 on h1 10..30; J1 restarts at 30 on h1
//                 with 90 s left: ends 120.
//   min_run_s 30: J1 may not be evicted before t=30: J2 waits, and at t=30 exactly (a
//                 wake-up, no other event then) J1 is evicted (ran 30 s); J2 30..50; J1
//                 restarts at 50 with 70 s left: ends 120.
TEST_CASE("Sim.HandWorkedPreemption.reorder_evicts_the_worst_running_job_after_min_run") {
  const std::vector<JobRow> jobs = {row(0, 100, 1, 4, 1), row(0, 100, 1, 4, 0), row(10, 20, 1, 4, 2)};
  struct Case {
    const char* preemption;
    const char* min_run_s;
    double j2_start, j1_restart;
  };
  const Case cases[] = {
      {"reorder", "0", 10, 30},
      {"reorder", "30", 30, 50},
      {"priority", "0", 10, 30},
      {"priority", "30", 30, 50},
  };
  for (const auto& c : cases) {
    CAPTURE(c.preemption);
    CAPTURE(c.min_run_s);
    SimRun r(uniform_cluster(1, 2, 4), policy("priority", c.preemption, "none", {{"min_run_s", c.min_run_s}}), jobs);
    CHECK(r.stats.preemptions == 1);
    CHECK(r.job(0).starts == std::vector<engine::Time>{0});
    CHECK(r.end_s(0) == 100);
    CHECK(r.job(1).starts == std::vector<engine::Time>{0, sec(c.j1_restart)});
    CHECK(r.where(1) == "h1:4 h1:4");
    CHECK(r.end_s(1) == 120);  // 100 s of work: what it ran before, the rest after
    CHECK(r.start_s(2) == c.j2_start);
    CHECK(r.where(2) == "h1:4");
    CHECK(r.end_s(2) == c.j2_start + 20);
  }
}

// Case P3: hosts h0, h1 of 4 GPUs, priority queue (all priority 0: first come, first
// served), greedy backfill.
//   J0  t=0  1 x 4 GPUs  100 s
//   J1  t=1  2 x 4 GPUs  50 s (a gang: all 8)
//   J2  t=2  1 x 4 GPUs  200 s
// J0 takes h0; J1 is blocked; greedy backfill starts J2 on h1 at 2.
//   none, priority: J1 outranks nobody (priority compares classes, and J2's is the same):
//     J1 waits for J2 to end, 202..252.
//   reorder: J1's key (submitted earlier) beats J2's. At t=2 J2 has just started (not a
//     victim in the pass that started it), and evicting it would not free 8 anyway. At
//     t=100 J0 ends: evicting J2 (ran 98 s) frees 8: J1 100..150; J2 restarts at 150 with
//     102 s left: ends 252.
TEST_CASE("Sim.HandWorkedPreemption.priority_never_evicts_within_a_class_reorder_does") {
  const std::vector<JobRow> jobs = {row(0, 100, 1, 4, 0), row(1, 50, 2, 4, 0), row(2, 200, 1, 4, 0)};
  struct Case {
    const char* preemption;
    double j1_start;
    std::vector<engine::Time> j2_starts;
    double j2_end;
    std::uint64_t preemptions;
  };
  const Case cases[] = {
      {"none", 202, {sec(2)}, 202, 0},
      {"priority", 202, {sec(2)}, 202, 0},
      {"reorder", 100, {sec(2), sec(150)}, 252, 1},
  };
  for (const auto& c : cases) {
    CAPTURE(c.preemption);
    SimRun r(uniform_cluster(1, 2, 4), policy("priority", c.preemption, "greedy"), jobs);
    CHECK(r.stats.preemptions == c.preemptions);
    CHECK(r.start_s(1) == c.j1_start);
    CHECK(r.end_s(1) == c.j1_start + 50);
    CHECK(r.job(2).starts == c.j2_starts);
    CHECK(r.end_s(2) == c.j2_end);
  }
}

// Case P4: hosts h0, h1 of 4 GPUs, fifo, no preemption: greedy vs EASY vs strict order.
//   J0  t=0  1 x 4 GPUs  100 s
//   J1  t=1  2 x 4 GPUs  50 s (a gang: all 8)
//   J2  t=2  1 x 2 GPUs  500 s
// J0 takes h0; J1 is blocked.
//   greedy: J2 fits on h1 and starts at 2, no questions asked; J1 then waits for it: 502..552.
//   easy: J1's reservation is at t=100 (8 free when J0 ends), with no spare GPU; J2 would
//     end at 502 > 100: refused. J1 100..150, then J2 150..650.
//   none: J2 waits behind J1: the same as easy here.
TEST_CASE("Sim.HandWorkedPreemption.greedy_backfill_starts_a_later_job_past_a_blocked_one") {
  const std::vector<JobRow> jobs = {{0, 100, 1, 4}, {1, 50, 2, 4}, {2, 500, 1, 2}};
  struct Case {
    const char* backfill;
    double j1_start, j2_start;
  };
  const Case cases[] = {{"greedy", 502, 2}, {"easy", 100, 150}, {"none", 100, 150}};
  for (const auto& c : cases) {
    CAPTURE(c.backfill);
    SimRun r(uniform_cluster(1, 2, 4), policy("fifo", "none", c.backfill), jobs);
    CHECK(r.start_s(1) == c.j1_start);
    CHECK(r.start_s(2) == c.j2_start);
    CHECK(r.where(2) == (std::string(c.backfill) == "greedy" ? "h1:2" : "h0:2"));
  }
}
