// Schedules whose queue keys change while the run goes, worked out by hand: Tiresias' LAS
// with a demotion mid-run, and SRTF, both with `reorder` preemption. The trace perf model
// runs every job at its traced speed and checkpoint interval 0 loses nothing, so a preempted
// job ends exactly its duration after its start plus the time it waited in between.
#include <doctest/doctest.h>

#include "../support/sim_harness.h"

using namespace schedlab;
using namespace schedlab::testing;

namespace {
sched::SchedulerConfig with_reorder(const std::string& queue, sched::PartArgs queue_args = {}) {
  auto c = scheduler_config("best-fit");
  c.queue = queue;
  c.preemption = "reorder";
  c.args["reorder"] = {{"min_run_s", "0"}};
  if (!queue_args.empty()) c.args[queue] = std::move(queue_args);
  return c;
}
}  // namespace

// One host of 4 GPUs; las with one threshold at 100 s of attained time (queues 0 and 1).
//   A  t=0   4 GPUs  300 s
//   B  t=50  4 GPUs  100 s
//   C  t=60  2 GPUs   50 s
// t=0: A starts in queue 0. t=50, 60: B and C wait in queue 0 behind the running A (running
// jobs stay ahead of waiting ones in their queue), B before C (queue entry order). t=100: A
// has attained 100 s: the timer demotes it to queue 1, now behind B and C; reorder stops A
// (nothing lost) and B takes the 4 GPUs (C does not fit beside it). t=200: B ends; C (queue 0)
// goes before A (queue 1) and starts; A needs 4 GPUs and waits. t=250: C ends; A restarts
// with 200 s left: 250..450.
TEST_CASE("Sim.HandWorkedDynamicKeys.las_demotes_a_running_job_at_its_threshold_and_reorder_preempts_it") {
  const std::vector<JobRow> jobs = {JobRow(0, 300, 1, 4), JobRow(50, 100, 1, 4), JobRow(60, 50, 1, 2)};
  SimRun r(uniform_cluster(1, 1, 4), with_reorder("las", {{"thresholds", "[100]"}, {"service", "time"}}), jobs);
  CHECK(r.stats.preemptions == 1);
  CHECK(r.job(0).starts == std::vector<engine::Time>{0, sec(250)});
  REQUIRE(r.job(0).stop_times.size() == 1);
  CHECK(r.job(0).stop_times[0].first == sec(100));   // exactly at the threshold
  CHECK(r.job(0).stop_times[0].second == sec(100));  // freed at once: no checkpoint save
  CHECK(r.end_s(0) == 450);
  CHECK(r.start_s(1) == 100);
  CHECK(r.end_s(1) == 200);
  CHECK(r.start_s(2) == 200);
  CHECK(r.end_s(2) == 250);
  CHECK(r.job(0).final_life.attained == sec(300));  // 100 s before the stop, 200 s after
  CHECK(r.job(0).final_life.preemptions == 1);
  CHECK(r.job(0).final_life.restarts == 1);
  CHECK(r.observer.violations() == 0);
  CHECK(r.observer.lifecycle_errors().empty());
}

// The same jobs under las without preemption: the demotion reorders nothing that runs, and
// B and C wait for A. A 0..300, B 300..400, C 400..450.
TEST_CASE("Sim.HandWorkedDynamicKeys.las_without_preemption_keeps_the_running_job") {
  const std::vector<JobRow> jobs = {JobRow(0, 300, 1, 4), JobRow(50, 100, 1, 4), JobRow(60, 50, 1, 2)};
  auto c = with_reorder("las", {{"thresholds", "[100]"}, {"service", "time"}});
  c.preemption = "none";
  SimRun r(uniform_cluster(1, 1, 4), c, jobs);
  CHECK(r.stats.preemptions == 0);
  CHECK(r.end_s(0) == 300);
  CHECK(r.start_s(1) == 300);
  CHECK(r.start_s(2) == 400);
}

// One host of 4 GPUs; srtf with reorder.
//   A  t=0    4 GPUs  300 s
//   B  t=100  4 GPUs  100 s
//   C  t=150  4 GPUs  250 s
// t=100: A has 200 s left, B 100 s: B outranks A, which is stopped; B runs 100..200. t=150:
// C (250 s) is worse than B (50 s left): it waits. t=200: B ends; A (200 s left) goes before
// C (250 s): A 200..400, then C 400..650.
TEST_CASE("Sim.HandWorkedDynamicKeys.srtf_preempts_the_job_with_more_work_left") {
  const std::vector<JobRow> jobs = {JobRow(0, 300, 1, 4), JobRow(100, 100, 1, 4), JobRow(150, 250, 1, 4)};
  SimRun r(uniform_cluster(1, 1, 4), with_reorder("srtf"), jobs);
  CHECK(r.stats.preemptions == 1);
  CHECK(r.job(0).starts == std::vector<engine::Time>{0, sec(200)});
  CHECK(r.end_s(0) == 400);
  CHECK(r.start_s(1) == 100);
  CHECK(r.end_s(1) == 200);
  CHECK(r.start_s(2) == 400);
  CHECK(r.end_s(2) == 650);
  CHECK(r.observer.lifecycle_errors().empty());
}

// Free preemption is what the classic simulators assume; with a checkpoint every 60 s of
// progress and a 10 s restore, the same SRTF schedule costs A the 40 s it did since its last
// checkpoint (at 60 s of work) and 10 s to restore: A restarts at 200 with 240 s of work
// left, after a 10 s restore: ends at 200 + 10 + 240 = 450; C then runs 450..700.
TEST_CASE("Sim.HandWorkedDynamicKeys.srtf_with_checkpoint_costs_loses_work_since_the_last_checkpoint") {
  const std::vector<JobRow> jobs = {JobRow(0, 300, 1, 4), JobRow(100, 100, 1, 4), JobRow(150, 250, 1, 4)};
  SimOptions o;
  o.lifecycle.checkpoint_set = true;
  o.lifecycle.checkpoint = {sec(60), 0, sec(10)};
  SimRun r(uniform_cluster(1, 1, 4), with_reorder("srtf"), jobs, o);
  CHECK(r.job(0).starts == std::vector<engine::Time>{0, sec(200)});
  CHECK(r.end_s(0) == 450);
  CHECK(r.start_s(2) == 450);
  CHECK(r.end_s(2) == 700);
  // Lost: 40 s of work on 4 GPUs, plus the 10 s restore on 4 GPUs.
  CHECK(r.job(0).final_life.lost_gpu_us == doctest::Approx(sec(4 * 40 + 4 * 10)));
}
