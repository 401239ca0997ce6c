// Stop pricing, checkpoint costs, the thrash guard and failure victims, table by table, without
// an engine (sim/stop_accounting.h). Times in microseconds; work in trace microseconds.
#include <doctest/doctest.h>

#include <limits>
#include <vector>

#include "sim/stop_accounting.h"

using namespace schedlab;
using namespace schedlab::sim;

namespace {
lifecycle::LifecycleConfig grace_of(engine::Time grace) {
  lifecycle::LifecycleConfig c;
  c.grace = grace;
  return c;
}
sched::JobLife running(double done, double total) {
  sched::JobLife l;
  l.state = sched::JobState::running;
  l.work_done = done;
  l.work_total = total;
  return l;
}
}  // namespace

TEST_CASE("Sim.StopAccounting.saves_and_holds_by_grace") {
  struct Row {
    engine::Time grace, save;
    bool saves;
    engine::Time hold;
  };
  const Row rows[] = {
      {0, 0, false, 0},      // no grace: never graceful
      {0, 50, false, 0},     //
      {100, 50, true, 50},   // the save fits: it holds its GPUs for the save
      {100, 100, true, 100}, // exactly fits
      {100, 150, false, 100},  // does not fit: held for the grace, keeps its periodic checkpoint
  };
  for (const auto& r : rows) {
    CAPTURE(r.grace);
    CAPTURE(r.save);
    const workload::CheckpointCost c{0, r.save, 0};
    CHECK(saves_on_preemption(grace_of(r.grace), c) == r.saves);
    CHECK(stop_hold(grace_of(r.grace), c) == r.hold);
  }
}

TEST_CASE("Sim.StopAccounting.keeps_all_work") {
  const workload::CheckpointCost fits{0, 50, 0};
  const workload::CheckpointCost too_long{0, 500, 0};
  struct Row {
    bool preempted;
    bool service;
    const workload::CheckpointCost* ckpt;
    bool keeps;
  };
  const Row rows[] = {
      {true, false, &fits, true},
      {true, false, &too_long, false},
      {false, false, &fits, false},   // a failure or a kill is never graceful
      {false, true, &too_long, true},  // a service keeps no state: loses nothing
  };
  for (const auto& r : rows) {
    CAPTURE(r.preempted);
    CHECK(keeps_all_work(r.preempted, r.service, grace_of(100), *r.ckpt) == r.keeps);
  }
}

TEST_CASE("Sim.StopAccounting.job_progress_is_its_slowest_run") {
  const double inf = std::numeric_limits<double>::infinity();
  struct Row {
    sched::JobLife life;
    bool fully_started, has_runs;
    double least, expect;
  };
  sched::JobLife pending = running(100, 1000);
  pending.state = sched::JobState::pending;
  const Row rows[] = {
      {running(100, 1000), true, true, 300, 400},   // its checkpoint plus its slowest run
      {running(100, 1000), true, true, 2000, 1000}, // never past its total
      {running(100, 1000), false, true, 300, 100},  // not fully started: no progress yet
      {running(100, 1000), true, false, inf, 100},  // no run
      {pending, true, true, 300, 100},              // not running
  };
  for (const auto& r : rows) CHECK(job_progress(r.life, r.fully_started, r.has_runs, r.least) == r.expect);
}

TEST_CASE("Sim.StopAccounting.keeps_work_from") {
  struct Row {
    Attempt a;
    workload::CheckpointCost ckpt;
    engine::Time grace, now, expect;
  };
  const engine::Time never = engine::kTimeMax;
  const Row rows[] = {
      // Continuous checkpoints, no costs: a microsecond of progress is enough.
      {{0, 0, 1000, 0}, {0, 0, 0}, 0, 0, 1},
      {{0, 5, 1000, 0}, {0, 0, 0}, 0, 5, 5},
      // Done: stopping it loses nothing.
      {{0, 1000, 1000, 0}, {0, 0, 0}, 0, 7, 7},
      // Restore 20 and periodic checkpoints every 300: the first checkpoint past 20, at speed 1.
      {{0, 100, 1000, 0}, {300, 0, 20}, 0, 100, 300},
      // At half speed so far: 250 more work takes 500 more.
      {{0, 50, 1000, 0}, {300, 0, 20}, 0, 100, 600},
      // Restoring until 150: the traced speed from there.
      {{0, 0, 1000, 150}, {300, 0, 20}, 0, 100, 450},
      // The next worthwhile checkpoint is past its end: it finishes first.
      {{900, 950, 1000, 0}, {300, 0, 20}, 0, 950, never},
      // A save that fits in the grace keeps every bit: restore 20 + hold 10.
      {{0, 10, 1000, 0}, {300, 10, 20}, 100, 10, 30},
  };
  for (const auto& r : rows) {
    CAPTURE(r.now);
    CAPTURE(r.a.done);
    CHECK(keeps_work_from(r.a, r.ckpt, grace_of(r.grace), r.now) == r.expect);
  }
}

TEST_CASE("Sim.StopAccounting.price_stop") {
  struct Row {
    workload::CheckpointCost ckpt;
    bool keeps_all;
    double done, restored;
    engine::Time progress_from, now;
    double gpus;
    engine::Time hold;
    StopPrice expect;
  };
  const Row rows[] = {
      // Periodic every 300: 700 done keeps 600; 100 lost at wall 700/700 on 4 GPUs.
      {{300, 0, 0}, false, 700, 0, 0, 700, 4, 0, {600, 100, 1, 400, 0}},
      // Saves everything, holding 2 GPUs for 50.
      {{300, 0, 0}, true, 700, 0, 0, 700, 2, 50, {700, 0, 1, 0, 100}},
      // Resumed from 600 after a restore until 120: 100 work in 200 wall, back to 600.
      {{300, 0, 0}, false, 700, 600, 120, 320, 1, 0, {600, 100, 2, 200, 0}},
      // No progress since its checkpoint: nothing lost, no wall time per work.
      {{300, 0, 0}, false, 600, 600, 0, 50, 1, 0, {600, 0, 0, 0, 0}},
      // Without periodic checkpoints nothing is ever lost.
      {{0, 0, 0}, false, 700, 0, 0, 700, 1, 0, {700, 0, 1, 0, 0}},
  };
  for (const auto& r : rows) {
    CAPTURE(r.done);
    CAPTURE(r.keeps_all);
    const auto p = price_stop(r.ckpt, r.keeps_all, r.done, r.restored, r.progress_from, r.now, r.gpus, r.hold);
    CHECK(p.saved == r.expect.saved);
    CHECK(p.lost == r.expect.lost);
    CHECK(p.wall_per_work == r.expect.wall_per_work);
    CHECK(p.lost_gpu_us == r.expect.lost_gpu_us);
    CHECK(p.hold_gpu_us == r.expect.hold_gpu_us);
  }
}

TEST_CASE("Sim.StopAccounting.price_cut_save") {
  // Stopped at 700 done (resumed from 0), saving all 700 until 800; a failure at 750 keeps the
  // periodic 600: 100 lost at wall 1 per work on 2 GPUs, and the 50 of hold left is not spent.
  const auto c = price_cut_save({300, 100, 0}, 700, 700, 0, 1, 2, 800, 750);
  CHECK(c.kept == 600);
  CHECK(c.lost == 100);
  CHECK(c.lost_gpu_us == 200);
  CHECK(c.unspent_gpu_us == 100);
  // The save was to end already: nothing unspent.
  CHECK(price_cut_save({300, 100, 0}, 700, 700, 0, 1, 2, 800, 900).unspent_gpu_us == 0);
  // The checkpoint it had resumed from stays valid.
  CHECK(price_cut_save({300, 100, 0}, 700, 700, 650, 1, 2, 800, 750).kept == 650);
}

TEST_CASE("Sim.StopAccounting.failure_victims") {
  // Host 1 of 8 GPUs: run 0 (job 10) holds 2 whole GPUs, run 1 (job 11) a share of slot 0 and
  // 1 whole GPU, run 2 (job 12) a share of slot 0 and run 3 (job 13) a share of slot 1; job 14
  // holds GPUs on host 0 only (never listed: not on the host).
  using cluster::TaskSlot;
  const cluster::Placement p0{{TaskSlot{1, 2}}};
  const cluster::Placement p1{{TaskSlot{1, 0, 500, 0}, TaskSlot{1, 1}}};
  const cluster::Placement p2{{TaskSlot{1, 0, 250, 0}}};
  const cluster::Placement p3{{TaskSlot{1, 0, 300, 1}}};
  const std::vector<HeldRun> runs{{10, &p0}, {11, &p1}, {12, &p2}, {13, &p3}};
  const std::vector<std::uint16_t> shares{750, 300, 0};
  struct Row {
    bool whole;
    std::uint32_t gpu, working;
    std::vector<workload::JobId> expect;
  };
  const Row rows[] = {
      {true, 0, 8, {10, 11, 12, 13}},  // the whole host
      {false, 0, 8, {10}},             // whole-GPU tasks first, in start order
      {false, 1, 8, {10}},
      {false, 2, 8, {11}},
      {false, 3, 8, {11, 12}},  // then the shared GPUs by slot: slot 0 strikes both its tasks
      {false, 4, 8, {13}},      // slot 1
      {false, 5, 8, {}},        // a free GPU
      {false, 7, 8, {}},
      {false, 11, 8, {11, 12}},  // modulo the working GPUs
      {false, 9, 6, {11, 12}},
  };
  for (const auto& r : rows) {
    CAPTURE(r.gpu);
    CAPTURE(r.working);
    CHECK(failure_victims(runs, 1, r.whole, r.gpu, r.working, shares) == r.expect);
  }
}
