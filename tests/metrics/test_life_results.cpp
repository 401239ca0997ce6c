// Results of a run with stops: jobs.csv's life columns and final placement, the summary's
// preemption, failure, goodput and fairness figures, the timeline's down GPUs, and the
// event log, from scripted observer calls and from a run with a host failure.
#include <doctest/doctest.h>

#include <sstream>

#include "../support/sim_harness.h"
#include "metrics/event_log.h"
#include "metrics/fan_out.h"
#include "metrics/summary.h"
#include "metrics/summary_figures.h"
#include "metrics/writers.h"
#include "perf/perf_registry.h"

using namespace schedlab;
using namespace schedlab::metrics;
using namespace schedlab::testing;

namespace {
workload::JobSpec job(workload::JobId id, std::uint32_t gpus, double duration_s, workload::Label user) {
  workload::JobSpec j;
  j.id = id;
  j.trace_number = 100 + id;
  j.tasks = 1;
  j.gpus_per_task = gpus;
  j.duration = sec(duration_s);
  j.user = user;
  return j;
}
InstantState at(double t_s, std::uint64_t used_gpus, std::uint64_t down = 0) {
  InstantState s;
  s.now = sec(t_s);
  s.used_milli = used_gpus * 1000;
  s.down_gpus = down;
  return s;
}
LifeEvent life_event(LifeStep step, double t_s, const workload::JobSpec& j, const sched::JobLife& l) {
  LifeEvent e;
  e.step = step;
  e.now = sec(t_s);
  e.job = &j;
  e.life = &l;
  return e;
}

// Two users on 2 hosts of 4 GPUs, worked out by hand:
//   J0 (user 1, 2 GPUs, 100 s of work) starts at 0 on h0; at 30 s job J1 preempts it and
//     it keeps a checkpoint at 20 s of work (10 s lost); it restarts at 50 s on h1, restores
//     for 5 s, and finishes at 135 s. GPU-seconds held: 2 x 30 + 2 x 85 = 230; lost:
//     2 x 10 (thrown away) + 2 x 5 (restore) = 30. JCT 135, rho 1.35.
//   J1 (user 2, 4 GPUs, 40 s) runs 30..70 on h0. GPU-seconds 160; JCT 40, rho 1.
//   Timeline integral: 2 x 30 + 4 x 20 + 6 x 20 + 2 x 65 = 390 = 230 + 160.
//   J0's first wait is 0 but its queueing delay 20 s (pending from its preemption at 30 s to
//   its restart at 50 s); run time 115 s. J1: queueing delay 0, run time 40 s.
// Each observer gets the simulation's calls in the simulation's order.
void script(RunObserver& o) {
  const auto j0 = job(0, 2, 100, 1), j1 = job(1, 4, 40, 2);
  const cluster::Placement h0_2{{{0, 2, 0, 0}}}, h1_2{{{1, 2, 0, 0}}}, h0_4{{{0, 4, 0, 0}}};
  sched::JobLife l0, l1;
  l0.work_total = static_cast<double>(sec(100));
  l1.work_total = static_cast<double>(sec(40));

  o.on_submit(j0, 0);
  o.on_start(j0, h0_2, 0, true);
  auto e = life_event(LifeStep::start, 0, j0, l0);
  e.placement = &h0_2;
  o.on_life(e);
  o.on_instant(at(0, 2));

  o.on_submit(j1, sec(30));
  ++l0.preemptions;
  l0.work_done = static_cast<double>(sec(20));
  l0.lost_gpu_us = 2 * static_cast<double>(sec(10));
  e = life_event(LifeStep::stop, 30, j0, l0);
  e.by = 1;
  e.lost_work_s = 10;
  o.on_life(e);
  l0.attained_gpu_us += 2 * static_cast<double>(sec(30));
  o.on_run_end(j0, h0_2, 0, sec(30), false);
  o.on_start(j1, h0_4, sec(30), true);
  e = life_event(LifeStep::start, 30, j1, l1);
  e.placement = &h0_4;
  o.on_life(e);
  o.on_instant(at(30, 4));

  ++l0.restarts;
  l0.lost_gpu_us += 2 * static_cast<double>(sec(5));
  o.on_start(j0, h1_2, sec(50), false);
  e = life_event(LifeStep::restart, 50, j0, l0);
  e.placement = &h1_2;
  o.on_life(e);
  o.on_instant(at(50, 6));

  l1.attained_gpu_us = 4 * static_cast<double>(sec(40));
  l1.attained = sec(40);
  l1.work_done = l1.work_total;
  o.on_run_end(j1, h0_4, sec(30), sec(70), true);
  o.on_life(life_event(LifeStep::finish, 70, j1, l1));
  o.on_instant(at(70, 2));

  l0.attained_gpu_us += 2 * static_cast<double>(sec(85));
  l0.attained = sec(30 + 85);  // held 0..30 and 50..135: pending 30..50
  l0.work_done = l0.work_total;
  o.on_run_end(j0, h1_2, sec(50), sec(135), true);
  o.on_life(life_event(LifeStep::finish, 135, j0, l0));
  o.on_instant(at(135, 0));
  o.on_finish(sec(135));
}

// The line of jobs.csv that starts with `prefix`.
std::string line_of(const std::string& csv, const std::string& prefix) {
  auto at = csv.find("\n" + prefix);
  if (at == std::string::npos) return {};
  auto end = csv.find('\n', at + 1);
  return csv.substr(at + 1, end - at - 1);
}
}  // namespace

TEST_CASE("Metrics.Collector.a_stopped_and_restarted_job_keeps_its_life_and_final_placement") {
  auto catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 2, 4), catalog);
  Collector c(topo, 60 * kMicrosPerSecond);
  script(c);

  const auto& r = c.jobs()[0];
  CHECK(r.state == sched::JobState::finished);
  CHECK(r.preemptions == 1);
  CHECK(r.restarts == 1);
  CHECK(r.failures == 0);
  CHECK(r.attained_gpu_us == doctest::Approx(230e6));
  CHECK(r.lost_gpu_us == doctest::Approx(30e6));
  CHECK(r.start == 0);
  CHECK(r.end == sec(135));
  // Only the attempt that finished, not both attempts' tasks.
  CHECK(c.text(r.placement) == "h1:2");
  CHECK(r.hosts == 1);
  CHECK(c.run_gpu_seconds() == doctest::Approx(390));
  CHECK(c.integral_gpu_seconds() == doctest::Approx(390));

  std::ostringstream csv;
  workload::StringPool strings;
  REQUIRE(strings.intern("alice") == 1);  // the users of script()
  REQUIRE(strings.intern("bob") == 2);
  write_jobs_csv(csv, c, strings);
  CHECK(csv.str().starts_with(std::string(kJobsCsvHeader) + "\n"));
  CHECK(csv.str().find(",state,drop_reason,preemptions,failures,restarts,attained_gpu_s,lost_gpu_s,cpus_per_task,"
                       "mem_gb_per_task,pool,kind\n") != std::string::npos);
  CHECK(line_of(csv.str(), "0,100,") ==
        "0,100,alice,0.000000,0.000000,135.000000,0.000000,20.000000,115.000000,135.000000,1,2,1000,2,1,1,V100,h1:2,"
        "finished,,1,0,1,230.000000,30.000000,0,0,,batch");
  CHECK(line_of(csv.str(), "1,101,").starts_with("1,101,bob,30.000000,30.000000,70.000000,0.000000,0.000000,40.000000,"
                                                 "40.000000,"));
  CHECK(line_of(csv.str(), "1,101,").ends_with(",h0:4,finished,,0,0,0,160.000000,0.000000,0,0,,batch"));
}

TEST_CASE("Metrics.Summary.lost_time_goodput_and_fairness_of_a_scripted_run") {
  auto catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 2, 4), catalog);
  Collector c(topo, 60 * kMicrosPerSecond);
  script(c);
  Summary s = summarize(c, 0);
  CHECK(s.finished == 2);
  CHECK(s.failed == 0);
  CHECK(s.preemptions == 1);
  CHECK(s.failures == 0);
  CHECK(s.gpu_hours == doctest::Approx(390.0 / 3600));
  CHECK(s.lost_gpu_hours == doctest::Approx(30.0 / 3600));
  CHECK(s.goodput == doctest::Approx(360.0 / 390));
  // Users with 230 and 160 GPU-seconds: 390^2 / (2 x (230^2 + 160^2)).
  CHECK(s.jain_fairness == doctest::Approx(390.0 * 390 / (2 * (230.0 * 230 + 160.0 * 160))));
  CHECK(s.ftf_rho_max == doctest::Approx(1.35));
  CHECK(s.ftf_rho_p95 == doctest::Approx(1 + 0.95 * 0.35));  // rank 0.95 between 1 and 1.35
  CHECK(s.queueing_delay_mean_s == doctest::Approx(10));  // (20 + 0) / 2
  CHECK(s.first_wait_mean_s == 0);
  // Slowdowns 135 / 115 and 40 / 40 = 1; bounded the same (both ran over 10 s).
  CHECK(s.slowdown_mean == doctest::Approx((135.0 / 115 + 1) / 2));
  CHECK(s.bounded_slowdown_mean == doctest::Approx((135.0 / 115 + 1) / 2));
  // The figures in the table's order; counts print as integers.
  auto figures = s.figures();
  REQUIRE(figures.size() == summary_figures().size());
  for (std::size_t i = 0; i < figures.size(); ++i) CHECK(figures[i].first == summary_figures()[i].name);
  CHECK(is_count_figure("finished_without_gpu"));
  CHECK(is_count_figure("preemptions"));
  CHECK_FALSE(is_count_figure("goodput"));
  std::ostringstream json;
  write_summary_json(json, s, "x");
  CHECK(json.str().find("\"preemptions\": 1,") != std::string::npos);
  CHECK(json.str().find("\"goodput\": 0.923077,") != std::string::npos);
  const std::string table = format_summary_table(s);
  CHECK(table.find("goodput") > table.find("fragmentation"));
  CHECK(table.find("92.3%") != std::string::npos);
}

TEST_CASE("Metrics.Summary.jain_index_and_finish_time_fairness_percentiles") {
  CHECK_FALSE(has_value(jain_index({})));  // fewer than 2 users: nothing to be fair between
  CHECK_FALSE(has_value(jain_index({5})));
  CHECK(jain_index({3, 3, 3}) == doctest::Approx(1.0));
  CHECK(jain_index({1, 0, 0, 0}) == doctest::Approx(0.25));
  CHECK(jain_index({0, 0}) == 1.0);

  // 20 jobs of 10 s alone, finishing 10, 20, ..., 200 s after submit: rho 1..20, p95 at
  // rank 0.95 x 19 = 18.05: 19.05.
  auto catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 1, 4), catalog);
  Collector c(topo, 60 * kMicrosPerSecond);
  const cluster::Placement one{{{0, 1, 0, 0}}};
  for (workload::JobId i = 0; i < 20; ++i) {
    auto j = job(i, 1, 10, 1);
    c.on_submit(j, 0);
    c.on_start(j, one, sec(10.0 * i), true);
    c.on_run_end(j, one, sec(10.0 * i), sec(10.0 * (i + 1)), true);
  }
  c.on_finish(sec(200));
  Summary s = summarize(c, 0);
  CHECK(s.finished == 20);
  CHECK(s.ftf_rho_max == doctest::Approx(20));
  CHECK(s.ftf_rho_p95 == doctest::Approx(19.05));
  CHECK_FALSE(has_value(s.jain_fairness));  // one user
  CHECK(s.goodput == doctest::Approx(1.0));
}

TEST_CASE("Metrics.Collector.timeline_averages_down_gpus") {
  // 8 GPUs, 10 s rows: 4 GPUs down from 5 s to 15 s.
  auto catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 2, 4), catalog);
  Collector c(topo, 10 * kMicrosPerSecond);
  c.on_instant(at(0, 0));
  c.on_instant(at(5, 0, 4));
  c.on_instant(at(15, 0, 0));
  c.on_instant(at(20, 0, 0));
  c.on_finish(sec(20));
  REQUIRE(c.timeline().size() == 2);
  CHECK(c.timeline()[0].down_gpus == doctest::Approx(2.0));
  CHECK(c.timeline()[1].down_gpus == doctest::Approx(2.0));
  std::ostringstream csv;
  write_timeline_csv(csv, c);
  CHECK(csv.str().starts_with(
      "start_s,end_s,gpu_utilization,used_gpus,running_jobs,pending_jobs,free_gpus,fragmented_gpus,down_gpus,"
      "cpu_utilization,used_cpus\n"));
  CHECK(csv.str().find("\n0,10,0.000000,0.000,0.000,0.000,0.000,0.000,2.000,0.000000,0.000\n") != std::string::npos);
}

TEST_CASE("Metrics.EventLog.rows_of_a_scripted_run") {
  workload::StringPool strings;
  std::ostringstream out;
  EventLog log(out, strings);
  script(log);
  CHECK(out.str() ==
        "time_s,job,event,reason,gpus,placement,work_done_s,lost_work_s\n"
        "0.000000,100,start,,2,h0:2,0.000000,0.000000\n"
        "30.000000,100,stop,preempted by job 101,2,h0:2,20.000000,10.000000\n"
        "30.000000,101,start,,4,h0:4,0.000000,0.000000\n"
        "50.000000,100,restart,restart 1: restores its checkpoint,2,h1:2,20.000000,0.000000\n"
        "70.000000,101,finish,,4,h0:4,40.000000,0.000000\n"
        "135.000000,100,finish,,2,h1:2,100.000000,0.000000\n");
}

TEST_CASE("Metrics.EventLog.failures_graceful_stops_and_drops_in_words") {
  workload::StringPool strings;
  auto j = job(0, 1, 100, 1);
  j.trace_id = strings.intern("job,7");
  std::ostringstream out;
  EventLog log(out, strings);
  log.on_submit(j, 0);
  sched::JobLife l;
  const cluster::Placement h3{{{3, 1, 0, 0}}};
  log.on_start(j, h3, 0, true);
  auto e = life_event(LifeStep::stop, 10, j, l);
  e.cause = sched::StopCause::gpu_failed;
  e.host = 3;
  e.lost_work_s = 10;
  l.failures = 1;
  log.on_life(e);
  e = life_event(LifeStep::stop, 20, j, l);
  e.cause = sched::StopCause::host_failed;
  e.host = 2;
  log.on_life(e);
  e = life_event(LifeStep::stop, 30, j, l);
  e.cause = sched::StopCause::preempted;
  e.hold = sec(15);
  log.on_life(e);
  l.failures = 4;
  l.work_done = static_cast<double>(sec(6));
  e = life_event(LifeStep::fail, 40, j, l);
  e.lost_work_s = 6;
  log.on_life(e);
  auto big = job(1, 64, 10, 1);
  log.on_drop(big, sec(50), "unresolvable: too big");
  const std::string s = out.str();
  CHECK(s.find("10.000000,\"job,7\",stop,GPU failed on h3,1,h3:1,") != std::string::npos);
  CHECK(s.find("20.000000,\"job,7\",stop,host h2 failed,,,") != std::string::npos);
  CHECK(s.find("30.000000,\"job,7\",stop,preempted; saves a checkpoint for 15 s,,,") != std::string::npos);
  CHECK(s.find("40.000000,\"job,7\",fail,retries exhausted after 4 failures,,,0.000000,6.000000\n") !=
        std::string::npos);
  CHECK(s.find("50.000000,101,drop,unresolvable: too big,,,0.000000,0.000000\n") != std::string::npos);
}

namespace {
// One failure, then none.
class OneFailure final : public lifecycle::FailureSource {
 public:
  explicit OneFailure(lifecycle::FailureEvent f) : f_(f) {}
  bool next(lifecycle::FailureEvent& out) override {
    if (done_) return false;
    done_ = true;
    out = f_;
    return true;
  }

 private:
  lifecycle::FailureEvent f_;
  bool done_ = false;
};
}  // namespace

TEST_CASE("Metrics.Results.a_host_failure_shows_in_jobs_csv_summary_and_event_log") {
  // One 2-GPU job of 100 s on 2 hosts of 2 GPUs, a checkpoint every 4 s of work, 2 s to
  // restore. Host 0 fails at 10 s (down for 1000 s, past the end of the run): the job keeps
  // its checkpoint at 8 s (2 s of work lost), restarts on host 1 at once, restores until
  // 12 s and finishes at 12 + 92 = 104 s. GPU-seconds held: 2 x 10 + 2 x 94 = 208; lost:
  // 2 x 2 (thrown away) + 2 x 2 (restore) = 8.
  auto catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 2, 2), catalog);
  VectorSource source({{0, 100, 1, 2}});
  auto perf = perf::make_trace_rate_model();
  Collector collector(topo, 60 * kMicrosPerSecond);
  std::ostringstream events;
  EventLog log(events, source.strings());
  FanOut both({&collector, &log});
  OneFailure failure({sec(10), 0, lifecycle::kWholeHost, sec(1000)});
  lifecycle::LifecycleConfig lifecycle;
  lifecycle.checkpoint_set = true;
  lifecycle.checkpoint = {sec(4), 0, sec(2)};
  sim::Simulation simulation(topo, scheduler_config("best-fit"), source, *perf, both, "memory", lifecycle, &failure);
  simulation.run();

  const auto& r = collector.jobs()[0];
  CHECK(r.state == sched::JobState::finished);
  CHECK(r.failures == 1);
  CHECK(r.restarts == 1);
  CHECK(r.end == sec(104));
  CHECK(collector.text(r.placement) == "h1:2");
  CHECK(r.attained_gpu_us == doctest::Approx(208e6));
  CHECK(r.lost_gpu_us == doctest::Approx(8e6));
  Summary s = summarize(collector, 0);
  CHECK(s.failures == 1);
  CHECK(s.preemptions == 0);
  CHECK(s.failed == 0);
  CHECK(s.goodput == doctest::Approx(200.0 / 208));
  CHECK(s.ftf_rho_max == doctest::Approx(1.04));
  CHECK(events.str() ==
        "time_s,job,event,reason,gpus,placement,work_done_s,lost_work_s\n"
        "0.000000,0,start,,2,h0:2,0.000000,0.000000\n"
        "10.000000,0,stop,host h0 failed,2,h0:2,8.000000,2.000000\n"
        "10.000000,0,restart,restart 1: restores its checkpoint,2,h1:2,8.000000,0.000000\n"
        "104.000000,0,finish,,2,h1:2,100.000000,0.000000\n");
  // The host's 2 GPUs are down from 10 s on (the run ends before its repair).
  REQUIRE(collector.timeline().size() == 2);
  CHECK(collector.timeline()[0].down_gpus == doctest::Approx(2.0 * 50 / 60));
  CHECK(collector.timeline()[1].down_gpus == doctest::Approx(2.0));
}
