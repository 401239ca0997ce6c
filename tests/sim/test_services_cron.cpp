// Marathon's services and Chronos' cron jobs in a run, hand-worked: instances relaunched after
// a growing backoff, scaled at given times and retired with the run's other work; cron
// occurrences delayed by the queue and by their parents, skipped when a parent failed or when
// the previous occurrence is still there.
#include <doctest/doctest.h>

#include "metrics/summary.h"
#include "support/sim_harness.h"
#include "workload/chronos_schedule.h"

namespace schedlab::testing {
namespace {

workload::ServiceSpec service(const std::string& name, std::uint32_t instances, std::uint32_t gpus) {
  workload::ServiceSpec s;
  s.name = name;
  s.instances = instances;
  s.shape.gpus_per_task = gpus;
  s.shape.cpu_given = s.shape.mem_given = true;
  return s;
}

// Every 100 s from the epoch, `repeats` times.
workload::CronSpec cron(const std::string& name, int repeats, double duration_s, std::uint32_t gpus) {
  workload::CronSpec c;
  c.name = name;
  c.shape.gpus_per_task = gpus;
  c.shape.cpu_given = c.shape.mem_given = true;
  c.duration = sec(duration_s);
  c.schedule_text = fmt::format("R{}/2026-01-05T00:00:00Z/PT100S", repeats);
  c.schedule = workload::parse_chronos_schedule(c.schedule_text);
  return c;
}

workload::LongRunningWork work_of(std::vector<workload::ServiceSpec> services, std::vector<workload::CronSpec> entries) {
  workload::LongRunningWork w;
  w.services = std::move(services);
  w.cron = std::move(entries);
  w.epoch_us = workload::parse_iso_datetime_us("2026-01-05T00:00:00Z");
  return w;
}

lifecycle::FailureEvent host_down(double at_s, cluster::HostId h, double for_s) {
  lifecycle::FailureEvent f;
  f.at = sec(at_s);
  f.host = h;
  f.down_for = sec(for_s);
  return f;
}

void check_clean(const SimRun& run) {
  CHECK(run.observer.violations() == 0);
  CHECK(run.observer.running_mismatches() == 0);
  for (const auto& e : run.observer.lifecycle_errors()) FAIL_CHECK(e);
  CHECK(run.observer.held_at_end() == 0);
}

}  // namespace

TEST_CASE("Sim.Services.a_failed_instance_comes_back_after_a_backoff_that_grows_with_each_failure") {
  // One instance on two 1-GPU hosts, from 0 to 1000 s; backoff 10 s, doubling. Both hosts
  // fail for 5 s at 100 s and again at 200 s: the instance is down 100-110 (first failure,
  // 10 s) and 200-220 (second failure, 20 s), though a host is back after 5 s each time.
  // Retries never run out for a service, even with max_retries 0.
  auto web = service("web", 1, 1);
  web.stop = sec(1000);
  web.backoff = sec(10);
  web.backoff_factor = 2;
  const auto work = work_of({web}, {});
  SimOptions o;
  o.long_running = &work;
  o.lifecycle.max_retries = 0;
  o.failures = {host_down(100, 0, 5), host_down(100, 1, 5), host_down(200, 0, 5), host_down(200, 1, 5)};
  SimRun run(uniform_cluster(1, 2, 1), scheduler_config("best-fit"), {}, o);
  const auto& log = run.job(0);
  REQUIRE(log.starts.size() == 3);
  CHECK(log.starts[0] == sec(0));
  CHECK(log.starts[1] == sec(110));
  CHECK(log.starts[2] == sec(220));
  CHECK(log.end == sec(1000));
  CHECK(log.finishes == 1);
  REQUIRE(run.services.size() == 1);
  const auto& f = run.services[0];
  CHECK(f.name == "web");
  CHECK(f.availability == doctest::Approx(970.0 / 1000.0));
  CHECK(f.failures == 2);
  CHECK(f.restarts == 2);
  CHECK(f.instances_max == 1);
  CHECK(engine::to_seconds(run.stats.end_time) == 1000);
  check_clean(run);
}

TEST_CASE("Sim.Services.scaled_up_and_down_at_given_times_and_retired_when_the_runs_other_work_ends") {
  // A batch job (1 GPU, 500 s) and a service of 1 instance scaled to 3 at 100 s and back to
  // 1 at 300 s, on one 4-GPU host: jobs 0 (batch), 1 (web.0), 2 and 3 (web.1, web.2).
  // web.1 and web.2 live 100-300 s; web.0 lasts as long as the batch job, to 500 s.
  auto web = service("web", 1, 1);
  web.scale = {{sec(100), 3}, {sec(300), 1}};
  const auto work = work_of({web}, {});
  SimOptions o;
  o.long_running = &work;
  SimRun run(uniform_cluster(1, 1, 4), scheduler_config("best-fit"), {JobRow(0, 500, 1, 1)}, o);
  CHECK(run.end_s(0) == 500);
  CHECK(run.start_s(1) == 0);
  CHECK(run.end_s(1) == 500);
  CHECK(run.start_s(2) == 100);
  CHECK(run.end_s(2) == 300);
  CHECK(run.start_s(3) == 100);
  CHECK(run.end_s(3) == 300);
  CHECK(engine::to_seconds(run.stats.end_time) == 500);
  REQUIRE(run.services.size() == 1);
  CHECK(run.services[0].availability == doctest::Approx(1.0));
  CHECK(run.services[0].instances_max == 3);
  CHECK(run.services[0].restarts == 0);
  // Services count in utilization, not among finished jobs or in JCT figures.
  const auto s = metrics::summarize(run.collector, 0);
  CHECK(s.finished == 1);
  CHECK(s.jct_mean_s == doctest::Approx(500));
  check_clean(run);
}

TEST_CASE("Sim.Services.an_instance_waiting_for_gpus_counts_against_availability") {
  // A 2-GPU host held by a batch job (2 GPUs, 0-400 s); a 1-instance service wanted from 100 s
  // to 600 s starts at 400 s: up 200 of its 500 wanted seconds.
  auto web = service("web", 1, 1);
  web.start = sec(100);
  web.stop = sec(600);
  const auto work = work_of({web}, {});
  SimOptions o;
  o.long_running = &work;
  SimRun run(uniform_cluster(1, 1, 2), scheduler_config("best-fit"), {JobRow(0, 400, 1, 2)}, o);
  CHECK(run.start_s(1) == 400);
  CHECK(run.end_s(1) == 600);
  REQUIRE(run.services.size() == 1);
  CHECK(run.services[0].availability == doctest::Approx(200.0 / 500.0));
  check_clean(run);
}

TEST_CASE("Sim.Cron.occurrences_wait_for_their_parents_latest_occurrence") {
  // etl (2 GPUs, 50 s) and report (1 GPU, 10 s, parent etl), both every 100 s three times, on a
  // 2-GPU host: each report occurrence waits for that round's etl and starts 50 s late.
  auto report = cron("report", 3, 10, 1);
  report.parents = {"etl"};
  const auto work = work_of({}, {cron("etl", 3, 50, 2), report});
  SimOptions o;
  o.long_running = &work;
  SimRun run(uniform_cluster(1, 1, 2), scheduler_config("best-fit"), {}, o);
  // Ids in arrival order: etl#0, report#0, etl#1, report#1, ...
  for (int round = 0; round < 3; ++round) {
    CAPTURE(round);
    CHECK(run.start_s(2 * round) == 100 * round);
    CHECK(run.start_s(2 * round + 1) == 100 * round + 50);
    CHECK(run.end_s(2 * round + 1) == 100 * round + 60);
  }
  REQUIRE(run.cron.size() == 2);
  CHECK(run.cron[0].name == "etl");
  CHECK(run.cron[0].occurrences == 3);
  CHECK(run.cron[0].delay_max_s == 0);
  CHECK(run.cron[1].occurrences == 3);
  CHECK(run.cron[1].started == 3);
  CHECK(run.cron[1].delay_mean_s == doctest::Approx(50));
  CHECK(run.cron[1].delay_max_s == doctest::Approx(50));
  CHECK(run.cron[1].skipped == 0);
  check_clean(run);
}

TEST_CASE("Sim.Cron.an_occurrence_whose_parent_failed_is_skipped") {
  // As above, with the host failing at 120 s for 10 s and no retries: etl#1 fails, report#1
  // (held for it) is skipped; the third round runs as before.
  auto report = cron("report", 3, 10, 1);
  report.parents = {"etl"};
  const auto work = work_of({}, {cron("etl", 3, 50, 2), report});
  SimOptions o;
  o.long_running = &work;
  o.lifecycle.max_retries = 0;
  o.failures = {host_down(120, 0, 10)};
  SimRun run(uniform_cluster(1, 1, 2), scheduler_config("best-fit"), {}, o);
  CHECK(run.job(2).fails == 1);
  CHECK(run.job(3).drops == 1);
  CHECK(run.job(3).starts.empty());
  CHECK(run.job(3).drop_reason == "skipped: parent occurrence etl#1 did not finish");
  CHECK(run.start_s(5) == 250);
  REQUIRE(run.cron.size() == 2);
  CHECK(run.cron[1].occurrences == 3);
  CHECK(run.cron[1].started == 2);
  CHECK(run.cron[1].skipped == 1);
  check_clean(run);
}

TEST_CASE("Sim.Cron.overlap_skip_drops_an_occurrence_while_the_previous_one_runs") {
  // 150 s runs every 100 s on one GPU: with overlap skip, #1 (at 100 s, #0 still running) is
  // skipped and #2 starts on time at 200 s.
  auto c = cron("long", 3, 150, 1);
  c.skip_overlap = true;
  const auto work = work_of({}, {c});
  SimOptions o;
  o.long_running = &work;
  SimRun run(uniform_cluster(1, 1, 1), scheduler_config("best-fit"), {}, o);
  CHECK(run.end_s(0) == 150);
  CHECK(run.job(1).drops == 1);
  CHECK(run.start_s(2) == 200);
  REQUIRE(run.cron.size() == 1);
  CHECK(run.cron[0].occurrences == 3);
  CHECK(run.cron[0].overlapping == 1);
  CHECK(run.cron[0].skipped == 1);
  CHECK(run.cron[0].started == 2);
  CHECK(run.cron[0].delay_max_s == 0);
  check_clean(run);
}

TEST_CASE("Sim.Cron.overlap_allow_lets_occurrences_queue_behind_each_other") {
  // The same with overlap allowed: #1 waits for the GPU until 150 s (50 s late), #2 until
  // 300 s (100 s late); both overlapped their predecessor.
  const auto work = work_of({}, {cron("long", 3, 150, 1)});
  SimOptions o;
  o.long_running = &work;
  SimRun run(uniform_cluster(1, 1, 1), scheduler_config("best-fit"), {}, o);
  CHECK(run.start_s(1) == 150);
  CHECK(run.start_s(2) == 300);
  CHECK(run.end_s(2) == 450);
  REQUIRE(run.cron.size() == 1);
  CHECK(run.cron[0].overlapping == 2);
  CHECK(run.cron[0].skipped == 0);
  CHECK(run.cron[0].delay_mean_s == doctest::Approx(50));
  CHECK(run.cron[0].delay_max_s == doctest::Approx(100));
  check_clean(run);
}

}  // namespace schedlab::testing
