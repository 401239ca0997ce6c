// Failures in runs: hand-worked runs where hosts and GPUs fail, and a whole scenario's
// determinism under seeded failures (the sources themselves: tests/lifecycle/test_failures.cpp).
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "config/scenario.h"
#include "lifecycle_harness.h"
#include "run/scenario_run.h"
#include "workload/generator.h"
#include "workload/native_csv.h"

using namespace schedlab;
using namespace schedlab::testing;

// --- hand-worked runs ----------------------------------------------------------------------

TEST_CASE("Failures.Sim.retries_exhausted_ends_the_job_as_failed_and_frees_its_gpus") {
  // Two hosts of 4 GPUs. Job 0 (4 GPUs, 1000 s) on h0, job 1 (4 GPUs, 2000 s) on h1, job 2
  // (3 GPUs, 100 s, submitted at 10) waits. GPU 0 of h0 fails at 700 (down 50 s): it holds job
  // 0's task. max_retries 0: job 0 ends as failed at 700; its GPUs are freed at once, so job 2
  // starts at 700 on h0's 3 working GPUs and ends at 800. Job 1 is untouched: ends 2000.
  LifeRun run(uniform_cluster(1, 2, 4), {{JobRow(0, 1000, 1, 4)}, {JobRow(0, 2000, 1, 4)}, {JobRow(10, 100, 1, 3)}},
              lifecycle_config(300, 0, 20, /*max_retries=*/0), "time_s,host,down_s,gpu\n700,h0,50,0\n");
  CHECK(run.observer.job(0).done == 0);
  CHECK(run.last(0).step == metrics::LifeStep::fail);
  CHECK(run.last(0).now == sec(700));
  CHECK(run.last(0).life.state == sched::JobState::failed);
  CHECK(run.last(0).life.failures == 1);
  CHECK(run.starts_s(2) == std::vector<double>{700});
  CHECK(run.observer.job(2).placements[0].tasks[0].host == 0);
  CHECK(run.end_s(2) == doctest::Approx(800));
  CHECK(run.end_s(1) == doctest::Approx(2000));
  CHECK(run.steps(1) == std::vector<metrics::LifeStep>{metrics::LifeStep::start, metrics::LifeStep::finish});
  CHECK(run.observer.held_at_end() == 0);
  CHECK(run.observer.violations() == 0);
}

TEST_CASE("Failures.Sim.one_retry_then_failed_on_the_second_failure") {
  // One host of 4 GPUs, continuous checkpoints (nothing lost), max_retries 1. Failures at 100
  // (down 10) and 300 (down 10): stopped at 100, restarted at 110 after the repair, stopped again
  // at 300 -> 2 failures > 1 retry: failed at 300 with 100 + 190 = 290 s of work saved.
  LifeRun run(uniform_cluster(1, 1, 4), {{JobRow(0, 1000, 1, 4)}}, lifecycle_config(0, 0, 0, /*max_retries=*/1),
              "time_s,host,down_s\n100,h0,10\n300,h0,10\n");
  CHECK(run.starts_s(0) == std::vector<double>{0, 110});
  CHECK(run.steps(0) == std::vector<metrics::LifeStep>{metrics::LifeStep::start, metrics::LifeStep::stop,
                                                       metrics::LifeStep::restart, metrics::LifeStep::stop,
                                                       metrics::LifeStep::fail});
  CHECK(run.last(0).now == sec(300));
  CHECK(run.last(0).life.work_done == doctest::Approx(290e6));
  CHECK(run.observer.job(0).done == 0);
}

TEST_CASE("Failures.Sim.a_gpu_failure_hits_only_the_job_on_that_gpu") {
  // One host, four 1-GPU jobs of 1000 s started at 0 in order (GPU indexes 0-3 in start order).
  // GPU 2 fails at 500 for 100 s: job 2 alone stops; with no checkpoint settings nothing is lost;
  // the other three GPUs are busy, so job 2 restarts when its GPU is repaired at 600: ends 1100.
  LifeRun run(uniform_cluster(1, 1, 4),
              {{JobRow(0, 1000, 1, 1)}, {JobRow(0, 1000, 1, 1)}, {JobRow(0, 1000, 1, 1)}, {JobRow(0, 1000, 1, 1)}},
              lifecycle::LifecycleConfig{}, "time_s,host,down_s,gpu\n500,h0,100,2\n");
  for (workload::JobId j : {0u, 1u, 3u}) {
    CAPTURE(j);
    CHECK(run.end_s(j) == doctest::Approx(1000));
    CHECK(run.starts_s(j).size() == 1);
  }
  CHECK(run.starts_s(2) == std::vector<double>{0, 600});
  CHECK(run.end_s(2) == doctest::Approx(1100));
  CHECK(run.last(2).life.failures == 1);
}

TEST_CASE("Failures.Sim.down_gpus_come_back_after_repair") {
  // A whole-host failure of h1 (idle) at 100 for 50 s, then GPU 3 of h0 at 120 for 100 s.
  // A 1000 s job on h0's GPU 0 keeps instants coming. Down GPUs: 4 from 100, 5 from 120,
  // 1 from 150, 0 from 220.
  LifeRun run(uniform_cluster(1, 2, 4), {{JobRow(0, 1000, 1, 1)}}, lifecycle::LifecycleConfig{},
              "time_s,host,down_s,gpu\n100,h1,50,\n120,h0,100,3\n");
  const auto& d = run.recorder.down_gpus;
  CHECK(d.at(sec(100)) == 4);
  CHECK(d.at(sec(120)) == 5);
  CHECK(d.at(sec(150)) == 1);
  CHECK(d.at(sec(220)) == 0);
  CHECK(run.end_s(0) == doctest::Approx(1000));  // GPU 3 was free: the job is untouched
}

// --- a whole scenario: determinism ---------------------------------------------------------

TEST_CASE("Failures.Scenario.same_seed_same_results_other_seed_other_failures") {
  // The workload is a fixed trace (generated once with seed 1), so that only the failures
  // change with the scenario's seed.
  workload::GeneratorConfig g;
  g.jobs = 60;
  g.arrival_rate_per_hour = 30;
  g.duration_median_s = 3600;
  g.gpu_sizes = {1, 2, 4};
  g.gpu_size_weights = {1, 1, 1};
  g.gpus_per_host = 4;
  auto gen = workload::make_generator(g, 1);
  std::ostringstream trace;
  workload::write_native_header(trace);
  workload::JobSpec j;
  while (gen->next(j)) workload::write_native_row(trace, j, gen->strings());
  const auto trace_path = temp_file("failing_jobs.csv", trace.str());
  const std::string root = SCHEDLAB_SOURCE_DIR;
  const auto scenario = temp_file("failing.yaml",
                                  "name: failing\n"
                                  "cluster: " + root + "/tests/fixtures/clusters/tiny.yaml\n"
                                  "workload: {trace: " + trace_path + "}\n"
                                  "checkpoint: {interval_s: 600, save_s: 30, restore_s: 60}\n"
                                  "failures: {host_mtbf_h: 2, repair_h: 0.5, gpu_failures_per_gpu_h: 0.05}\n");
  auto jobs_csv = [&](std::uint64_t seed, const std::string& out) {
    auto sc = config::load_scenario(scenario, {}, seed);
    util::Notices notices;
    auto outcome = run::run_scenario(sc, notices, out, true);
    std::ifstream in(out + "/jobs.csv");
    std::stringstream s;
    s << in.rdbuf();
    return std::make_pair(s.str(), outcome.stats.failures);
  };
  const auto dir = std::filesystem::temp_directory_path() / "schedlab_lifecycle_tests";
  const auto a = jobs_csv(4, (dir / "run_a").string());
  const auto b = jobs_csv(4, (dir / "run_b").string());
  const auto c = jobs_csv(5, (dir / "run_c").string());
  CHECK(a.second > 0);
  CHECK(a.first == b.first);
  CHECK(a.second == b.second);
  CHECK(a.first != c.first);
}
