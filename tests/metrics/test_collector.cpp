// The collector's timeline and GPU-time integral, and the summary's percentiles.
#include <doctest/doctest.h>

#include <sstream>

#include "../support/sim_harness.h"
#include "metrics/summary.h"
#include "metrics/writers.h"

using namespace schedlab;
using namespace schedlab::metrics;
using namespace schedlab::testing;

namespace {
InstantState at(double t_s, std::uint64_t used_milli, std::uint64_t free, std::uint64_t running = 0,
                std::uint64_t pending = 0, std::uint64_t fragmented = 0) {
  InstantState s;
  s.now = sec(t_s);
  s.used_milli = used_milli;
  s.free_gpus = free;
  s.running_jobs = running;
  s.pending_jobs = pending;
  s.fragmented_gpus = fragmented;
  return s;
}
workload::JobSpec job(workload::JobId id, std::uint32_t tasks = 1, std::uint32_t gpus = 1) {
  workload::JobSpec j;
  j.id = id;
  j.trace_number = 100 + id;
  j.tasks = tasks;
  j.gpus_per_task = gpus;
  return j;
}
}  // namespace

TEST_CASE("Metrics.Collector.timeline_integral_equals_run_gpu_time") {
  // 8 GPUs, 10 s rows. Job 0 holds 2 GPUs 0..25; job 1 holds 2 more 5..25.
  //   [0,10):  2 GPUs for 5 s, 4 GPUs for 5 s -> 3.0 on average
  //   [10,20): 4
  //   [20,25): 4 (the last row ends with the run)
  // Integral: 2 x 5 + 4 x 20 = 90 GPU-seconds.
  auto catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 2, 4), catalog);
  Collector c(topo, 10 * kMicrosPerSecond);
  const cluster::Placement two{{{0, 2, 0, 0}}};
  const cluster::Placement two_more{{{1, 2, 0, 0}}};
  c.on_submit(job(0, 1, 2), 0);
  c.on_start(job(0, 1, 2), two, 0, true);
  c.on_instant(at(0, 2000, 6, 1));
  c.on_submit(job(1, 1, 2), sec(5));
  c.on_start(job(1, 1, 2), two_more, sec(5), true);
  c.on_instant(at(5, 4000, 4, 2));
  c.on_run_end(job(0, 1, 2), two, 0, sec(25), true);
  c.on_run_end(job(1, 1, 2), two_more, sec(5), sec(25), true);
  c.on_instant(at(25, 0, 8, 0));
  c.on_finish(sec(25));

  CHECK(c.run_gpu_seconds() == doctest::Approx(90));
  CHECK(c.integral_gpu_seconds() == doctest::Approx(90));
  const auto& rows = c.timeline();
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].start == 0);
  CHECK(rows[0].used_gpus == doctest::Approx(3.0));
  CHECK(rows[0].running_jobs == doctest::Approx(1.5));
  CHECK(rows[1].used_gpus == doctest::Approx(4.0));
  CHECK(rows[2].start == sec(20));
  CHECK(rows[2].end == sec(25));
  CHECK(rows[2].used_gpus == doctest::Approx(4.0));
  CHECK(rows[2].free_gpus == doctest::Approx(4.0));
  CHECK(c.jobs()[1].start == sec(5));
  CHECK(c.jobs()[1].end == sec(25));
  CHECK(c.text(c.jobs()[0].placement) == "h0:2");
}

TEST_CASE("Metrics.Collector.quiet_intervals_still_get_rows") {
  // One instant at 0 holding 1 GPU, the next at 35 s: rows for [0,10) ... [30,35).
  auto catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 1, 4), catalog);
  Collector c(topo, 10 * kMicrosPerSecond);
  c.on_instant(at(0, 1000, 3, 1));
  c.on_instant(at(35, 0, 4));
  c.on_finish(sec(35));
  const auto& rows = c.timeline();
  REQUIRE(rows.size() == 4);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(rows[i].start == sec(10.0 * static_cast<double>(i)));
    CHECK(rows[i].used_gpus == doctest::Approx(1.0));
  }
  CHECK(rows[3].end == sec(35));
  CHECK(rows[3].used_gpus == doctest::Approx(1.0));
  CHECK(c.integral_gpu_seconds() == doctest::Approx(35));
}

TEST_CASE("Metrics.Collector.shares_count_as_fractions_and_fragmentation_integrates") {
  auto catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 1, 4), catalog);
  Collector c(topo, 100 * kMicrosPerSecond);
  c.on_instant(at(0, 250, 3, 1, 1, 2));  // a quarter GPU held; 2 free GPUs the head cannot use
  c.on_instant(at(40, 0, 4));
  c.on_finish(sec(40));
  CHECK(c.integral_gpu_seconds() == doctest::Approx(10));
  CHECK(c.fragmented_gpu_seconds() == doctest::Approx(80));
}

TEST_CASE("Metrics.Summary.linear_percentiles") {
  // pandas.Series(range(1, 11)).quantile(p / 100), its default (linear) method.
  const std::vector<double> ten = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  struct Case {
    double p, expected;
  };
  const Case cases[] = {{0, 1}, {10, 1.9}, {11, 1.99}, {50, 5.5}, {51, 5.59}, {95, 9.55}, {99, 9.91}, {100, 10}};
  for (const auto& c : cases) {
    CAPTURE(c.p);
    CHECK(percentile(ten, c.p) == doctest::Approx(c.expected));
  }
  CHECK(percentile({}, 50) == 0);
  CHECK(percentile({42}, 99) == 42);
}

TEST_CASE("Metrics.Summary.figures_of_a_small_run") {
  // Four jobs on 4 GPUs, worked out by hand:
  //   J0 1 GPU  t=0  runs 0..100     JCT 100, wait 0,   run 100
  //   J1 4 GPUs t=0  waits, 100..150 JCT 150, wait 100, run 50
  //   J2 1 GPU  t=10 waits, 150..160 JCT 150, wait 140, run 10
  //   J3 8 GPUs t=20: dropped (the last submission: the window is 0..20, where J0 alone runs)
  const std::vector<JobRow> jobs = {{0, 100, 1, 1}, {0, 50, 1, 4}, {10, 10, 1, 1}, {20, 10, 1, 8}};
  SimRun r(uniform_cluster(1, 1, 4), scheduler_config("best-fit"), jobs);
  Summary s = summarize(r.collector, 0);
  CHECK(s.jobs == 4);
  CHECK(s.finished == 3);
  CHECK(s.dropped == 1);
  CHECK(s.total_gpus == 4);
  CHECK(s.jct_mean_s == doctest::Approx(400.0 / 3));
  CHECK(s.jct_p50_s == doctest::Approx(150));
  CHECK(s.jct_p99_s == doctest::Approx(150));
  CHECK(s.first_wait_mean_s == doctest::Approx(80));
  CHECK(s.first_wait_p95_s == doctest::Approx(136));  // rank 1.9 of {0, 100, 140}
  // Never stopped: the queueing delay is the first wait.
  CHECK(s.queueing_delay_mean_s == doctest::Approx(80));
  CHECK(s.queueing_delay_p50_s == doctest::Approx(100));
  CHECK(s.slowdown_mean == doctest::Approx((1.0 + 3 + 15) / 3));
  CHECK(s.bounded_slowdown_mean == doctest::Approx((1.0 + 3 + 15) / 3));
  CHECK(s.makespan_s == doctest::Approx(160));
  CHECK(s.gpu_hours == doctest::Approx(310.0 / 3600));
  CHECK(s.gpu_utilization_makespan == doctest::Approx(310.0 / (4 * 160)));
  CHECK(s.window_start_s == 0);
  CHECK(s.window_end_s == 20);
  CHECK(s.gpu_utilization == doctest::Approx(0.25));
  CHECK(!has_value(s.jain_fairness));  // the trace has no users
  std::ostringstream csv;
  write_jobs_csv(csv, r.collector, r.source.strings());
  CHECK(csv.str().find("3,3,,20.000000,,,,,,,1,8,1000,8,0,0,,,dropped,unresolvable: a task needs 8 GPUs on one host; "
                       "the largest allowed host has 4,0,0,0,0.000000,0.000000,0,0,,batch\n") != std::string::npos);
}

TEST_CASE("Metrics.Writers.csv_fields_are_quoted_only_when_needed") {
  CHECK(util::csv_field("plain") == "plain");
  CHECK(util::csv_field("a,b") == "\"a,b\"");
  CHECK(util::csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
}
