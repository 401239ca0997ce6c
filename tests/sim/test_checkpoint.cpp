// Checkpoint-restart, hand-worked: a job stopped at a known instant loses exactly the work since
// its last checkpoint, pays its restore time on restart, and is charged lost GPU-seconds for
// both; costs come from the trace's columns, else the scenario, else the model catalog.
#include <doctest/doctest.h>

#include <sstream>

#include "lifecycle_harness.h"
#include "perf/model_catalog.h"
#include "util/error.h"
#include "workload/native_csv.h"

using namespace schedlab;
using namespace schedlab::testing;

namespace {
double lost_gpu_s(const LifeRecord& r) { return r.life.lost_gpu_us / 1e6; }
}  // namespace

TEST_CASE("Checkpoint.Failure.loses_work_since_the_last_checkpoint_and_pays_restore") {
  // Two hosts of 4 GPUs. Job 0: 4 GPUs, 1000 s of work, checkpoints every 300 s of work,
  // restore 20 s. It runs on h0 from 0; h0 fails at 700 (down 50 s).
  //   done at 700 = 700 s; last checkpoint = floor(700 / 300) * 300 = 600 -> 100 s lost.
  //   It restarts at once on h1 (free), restores until 720, then does the 400 s left: ends 1120.
  //   Lost GPU-s: thrown-away work 100 s x (wall 700 / work 700) x 4 GPUs = 400,
  //               plus the restore 20 s x 4 GPUs = 80  -> 480.
  LifeRun run(uniform_cluster(1, 2, 4), {{JobRow(0, 1000, 1, 4)}}, lifecycle_config(300, 0, 20),
              "time_s,host,down_s\n700,h0,50\n");
  CHECK(run.starts_s(0) == std::vector<double>{0, 700});
  CHECK(run.observer.job(0).placements[1].tasks[0].host == 1);
  CHECK(run.end_s(0) == doctest::Approx(1120));
  const auto& end = run.last(0);
  CHECK(end.step == metrics::LifeStep::finish);
  CHECK(end.life.failures == 1);
  CHECK(end.life.restarts == 1);
  CHECK(lost_gpu_s(end) == doctest::Approx(480));
  // The stop step says how much work was thrown away.
  bool saw_stop = false;
  for (const auto& l : run.recorder.lives)
    if (l.step == metrics::LifeStep::stop) {
      saw_stop = true;
      CHECK(l.now == sec(700));
      CHECK(l.cause == sched::StopCause::host_failed);
      CHECK(l.lost_work_s == doctest::Approx(100));
    }
  CHECK(saw_stop);
  CHECK(run.stats.failures == 1);
}

TEST_CASE("Checkpoint.Failure.restart_waits_for_the_repair_and_then_restores") {
  // One host: the same failure, but the job must wait for h0's repair at 750.
  //   restart 750, restore to 770, 400 s left -> ends 1170. Waiting holds no GPUs, so the
  //   lost GPU-s are still 400 (thrown away) + 80 (restore) = 480.
  LifeRun run(uniform_cluster(1, 1, 4), {{JobRow(0, 1000, 1, 4)}}, lifecycle_config(300, 0, 20),
              "time_s,host,down_s\n700,h0,50\n");
  CHECK(run.starts_s(0) == std::vector<double>{0, 750});
  CHECK(run.end_s(0) == doctest::Approx(1170));
  CHECK(lost_gpu_s(run.last(0)) == doctest::Approx(480));
}

TEST_CASE("Checkpoint.Failure.continuous_checkpoints_lose_nothing_but_the_restore") {
  // interval 0: every instant is saved. Restarted at 700 on h1, restore 5 s: ends 1005;
  // lost GPU-s = 5 s x 4 GPUs = 20.
  LifeRun run(uniform_cluster(1, 2, 4), {{JobRow(0, 1000, 1, 4)}}, lifecycle_config(0, 0, 5),
              "time_s,host,down_s\n700,h0,50\n");
  CHECK(run.end_s(0) == doctest::Approx(1005));
  CHECK(lost_gpu_s(run.last(0)) == doctest::Approx(20));
}

TEST_CASE("Checkpoint.Failure.without_checkpoint_settings_a_stop_is_free") {
  // No trace columns, no scenario section, the trace perf model (no catalog): the classic
  // simulators' free preemption. Restart at 700 on h1 with nothing lost: ends 1000.
  LifeRun run(uniform_cluster(1, 2, 4), {{JobRow(0, 1000, 1, 4)}}, lifecycle::LifecycleConfig{},
              "time_s,host,down_s\n700,h0,50\n");
  CHECK(run.end_s(0) == doctest::Approx(1000));
  CHECK(lost_gpu_s(run.last(0)) == doctest::Approx(0));
}

TEST_CASE("Checkpoint.Precedence.trace_columns_then_scenario") {
  // The trace gives interval 400 (restore left empty); the scenario says interval 300,
  // restore 20. Per field: interval 400 from the trace, restore 20 from the scenario.
  //   failure at 700: last checkpoint 400 -> 300 s lost; restart 700 on h1, restore to 720,
  //   600 s left -> ends 1320. Lost GPU-s = 300 x 4 + 20 x 4 = 1280.
  CkptRow row{JobRow(0, 1000, 1, 4)};
  row.interval_s = 400;
  LifeRun run(uniform_cluster(1, 2, 4), {row}, lifecycle_config(300, 0, 20), "time_s,host,down_s\n700,h0,50\n");
  CHECK(run.end_s(0) == doctest::Approx(1320));
  CHECK(lost_gpu_s(run.last(0)) == doctest::Approx(1280));
}

namespace {
// Priority queue and priority preemption on one host of 4 GPUs: J1 (priority 1) outranks J0.
sched::SchedulerConfig preempting_priority() {
  auto c = scheduler_config("first-fit");
  c.queue = "priority";
  c.preemption = "priority";
  return c;
}
CkptRow prio_row(double submit, double duration, std::int32_t priority) {
  CkptRow r{JobRow(submit, duration, 1, 4)};
  r.row.priority = priority;
  return r;
}
}  // namespace

TEST_CASE("Checkpoint.ThrashGuard.a_victim_is_stopped_at_its_first_checkpoint_worth_its_cost") {
  // Checkpoints every 100 s of work, restore 20 s, immediate preemption (no grace).
  //   J0  t=0   priority 0  4 GPUs  1000 s
  //   J1  t=50  priority 1  4 GPUs   100 s
  // At 50 a stop would keep nothing (no checkpoint yet): J0 is evicted when a stop keeps at
  // least its restore (20 s), i.e. at its first checkpoint, t=100, losing no work.
  //   J1 runs 100..200. J0 restarts at 200, restores to 220, does its 900 s left: ends 1120.
  //   Lost GPU-s: the restore only, 20 s x 4 GPUs = 80.
  LifeRun run(uniform_cluster(1, 1, 4), {prio_row(0, 1000, 0), prio_row(50, 100, 1)}, lifecycle_config(100, 0, 20), "",
              "failures.csv", preempting_priority());
  CHECK(run.starts_s(1) == std::vector<double>{100});
  CHECK(run.end_s(1) == doctest::Approx(200));
  CHECK(run.starts_s(0) == std::vector<double>{0, 200});
  CHECK(run.end_s(0) == doctest::Approx(1120));
  CHECK(run.last(0).life.preemptions == 1);
  CHECK(lost_gpu_s(run.last(0)) == doctest::Approx(80));
}

TEST_CASE("Checkpoint.ThrashGuard.a_job_that_ends_before_its_next_checkpoint_is_not_evicted") {
  // The same, but J0 has 90 s of work: its first checkpoint (100) comes after its end, so
  // stopping it would only throw work away. J1 waits: J0 ends at 90, J1 runs 90..190.
  LifeRun run(uniform_cluster(1, 1, 4), {prio_row(0, 90, 0), prio_row(50, 100, 1)}, lifecycle_config(100, 0, 20), "",
              "failures.csv", preempting_priority());
  CHECK(run.starts_s(0) == std::vector<double>{0});
  CHECK(run.end_s(0) == doctest::Approx(90));
  CHECK(run.starts_s(1) == std::vector<double>{90});
  CHECK(run.end_s(1) == doctest::Approx(190));
}

TEST_CASE("Checkpoint.ThrashGuard.a_restarted_job_is_not_evicted_while_it_restores") {
  // Free checkpoints (interval 0: every instant saved) but restore 30 s.
  //   J0  t=0   priority 0  4 GPUs  1000 s
  //   J1  t=50  priority 2  4 GPUs   100 s   evicts J0 at 50 (J0 did 50 s >= its 30 s cost)
  //   J2  t=160 priority 1  4 GPUs   100 s
  // J1 ends 150; J0 restarts at 150 and restores until 180. J2 (priority 1) outranks J0 but
  // may evict it only once a stop keeps 30 s beyond its checkpoint: at 180 + 30 = 210.
  //   J0 did 50 + 30 = 80 s. J2 runs 210..310; J0 restarts 310, restores to 340, has 920 s
  //   left: ends 1260.
  LifeRun run(uniform_cluster(1, 1, 4), {prio_row(0, 1000, 0), prio_row(50, 100, 2), prio_row(160, 100, 1)},
              lifecycle_config(0, 0, 30), "", "failures.csv", preempting_priority());
  CHECK(run.starts_s(0) == std::vector<double>{0, 150, 310});
  CHECK(run.starts_s(2) == std::vector<double>{210});
  CHECK(run.end_s(0) == doctest::Approx(1260));
}

TEST_CASE("Checkpoint.Catalog.size_over_storage_bandwidth") {
  // 1e9 parameters x 14 bytes = 14 GB; written at 2 GB/s = 7 s, read at 4 GB/s = 3.5 s.
  const auto cat = perf::load_model_catalog_text(R"(
checkpoint_storage: {write_gb_s: 2, read_gb_s: 4}
models:
  - name: big
    params: 1e9
    dtype: bf16
    checkpoint: {interval_s: 1800}
    samples_per_s: {V100: 1}
  - name: plain
    params: 1e6
    samples_per_s: {V100: 1}
)",
                                                 "catalog.yaml");
  workload::CheckpointCost c;
  REQUIRE(cat.checkpoint_cost(cat.get("big"), c));
  CHECK(c.interval == sec(1800));
  CHECK(c.save == sec(7));
  CHECK(c.restore == sec(3.5));
  CHECK_FALSE(cat.checkpoint_cost(cat.get("plain"), c));
}

TEST_CASE("Checkpoint.Catalog.configs_models_yaml_carries_llm_checkpoints") {
  // llama2-7b: 6.74e9 x 14 B = 94.36 GB -> 47.18 s save at 2 GB/s, 23.59 s restore at 4 GB/s.
  const auto cat = perf::load_model_catalog(std::string(SCHEDLAB_SOURCE_DIR) + "/configs/models.yaml");
  workload::CheckpointCost c;
  REQUIRE(cat.checkpoint_cost(cat.get("llama2-7b"), c));
  CHECK(engine::to_seconds(c.save) == doctest::Approx(47.18));
  CHECK(engine::to_seconds(c.restore) == doctest::Approx(23.59));
  CHECK(c.interval == sec(1800));
}

TEST_CASE("Checkpoint.Catalog.bad_figures_are_located") {
  auto error_of = [](const std::string& text) {
    try {
      perf::load_model_catalog_text(text, "catalog.yaml");
    } catch (const util::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("checkpoint_storage: {write_gb_s: 0, read_gb_s: 4}\nmodels:\n  - {name: m, params: 1, samples_per_s: "
                 "{V100: 1}}\n")
            .starts_with("catalog.yaml:1: checkpoint_storage.write_gb_s: 0 is out of range (0"));
  CHECK(error_of("models:\n  - name: m\n    params: 1\n    checkpoint: {interval_s: 60}\n    samples_per_s: {V100: 1}\n")
            .find("needs checkpoint_storage") != std::string::npos);
  CHECK(error_of("checkpoint_storage: {write_gb_s: 1, read_gb_s: 4}\nmodels:\n  - name: m\n    params: 1\n"
                 "    checkpoint: {interval_s: -5}\n    samples_per_s: {V100: 1}\n")
            .starts_with("catalog.yaml:5: models[0].checkpoint.interval_s: -5 is out of range"));
}

TEST_CASE("Checkpoint.NativeCsv.columns_are_read_checked_and_written") {
  const auto path = temp_file("ckpt_trace.csv",
                              "id,submit_s,duration_s,tasks,gpus_per_task,ckpt_interval_s,ckpt_save_s,ckpt_restore_s\n"
                              "0,0,100,1,1,600,30,15\n"
                              "1,1,100,1,1,,,\n");
  auto src = workload::open_native_csv(path, {});
  workload::JobSpec a, b;
  REQUIRE(src->next(a));
  REQUIRE(src->next(b));
  CHECK(a.ckpt_interval_s == 600);
  CHECK(a.ckpt_save_s == 30);
  CHECK(a.ckpt_restore_s == 15);
  CHECK(b.ckpt_interval_s < 0);  // empty = not in the trace
  CHECK(b.ckpt_restore_s < 0);
  std::ostringstream out;
  workload::write_native_row(out, a, src->strings());
  CHECK(out.str().ends_with(",600,30,15,,,1,,,,\n"));  // then cpus, mem_gb: not in this trace; preemptible, group
  std::ostringstream out_b;
  workload::write_native_row(out_b, b, src->strings());
  CHECK(out_b.str().ends_with(",,,,,,1,,,,\n"));

  const auto bad = temp_file("ckpt_bad.csv", "id,submit_s,duration_s,tasks,gpus_per_task,ckpt_save_s\n0,0,100,1,1,-3\n");
  auto bad_src = workload::open_native_csv(bad, {});
  workload::JobSpec j;
  try {
    bad_src->next(j);
    FAIL("expected an InputError");
  } catch (const util::InputError& e) {
    CHECK(std::string(e.what()).starts_with(bad + ":2: ckpt_save_s: -3 s is out of range"));
  }
}
