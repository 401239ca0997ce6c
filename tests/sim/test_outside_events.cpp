// The seam an emulation plugs into (sim/clock.h): a clock that delivers events from outside
// and an executor whose runs end when the outside world says so. Here the "outside world" is
// scripted: processes that take exactly the perf model's time, tasks that die, hosts lost.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "perf/perf_model.h"
#include "sim/clock.h"
#include "support/sim_harness.h"

namespace schedlab::testing {
namespace {

// Runs "processes" that each take their work at speed 1 (after their restore delay) and
// reports their ends from outside, plus scripted failures at given instants.
class ScriptedWorld final : public sim::Executor, public sim::Clock {
 public:
  struct Failure {
    engine::Time at;
    workload::JobId job = 0;  // a task of this job's running run dies...
    bool whole_host = false;  // ...or the host it runs on is lost
    engine::Time back_after = 0;
  };
  std::vector<Failure> script;
  std::vector<std::pair<engine::Time, sim::SubmittedJob>> submits;  // API submissions
  std::vector<std::pair<engine::Time, workload::JobId>> kills;       // API stops
  std::vector<bool> kill_results;
  struct Scale {
    engine::Time at;
    std::string service;
    std::uint32_t instances;
  };
  std::vector<Scale> scales;  // API scales, in time order
  std::vector<std::optional<sim::ServiceScaled>> scaled;
  engine::Time look_at = -1;  // inspect the run at this instant (into `view`)
  sim::RunView view;
  std::vector<workload::JobId> submitted;
  std::vector<engine::Time> instants;  // what advance() returned

  void start(sim::RunId run, const workload::JobSpec& job, const cluster::Placement& placement, engine::Time now,
             double work, engine::Time delay) override {
    // A service instance's work is endless (kTimeMax): its end saturates.
    live_[run] = Proc{job.id, placement.tasks.front().host, now + delay,
                      engine::add_saturating(now + delay, engine::from_micros(std::ceil(work)))};
  }
  bool is_current(const engine::Event& e) const override { return live_.count(e.subject) > 0; }
  void finished(sim::RunId run, engine::Time) override { live_.erase(run); }
  double stop(sim::RunId run, engine::Time now, bool) override {
    double done = progress(run, now);
    live_.erase(run);
    return done;
  }
  double progress(sim::RunId run, engine::Time now) const override {
    auto it = live_.find(run);
    if (it == live_.end()) return 0;
    return static_cast<double>(std::clamp(now, it->second.ready, it->second.end) - it->second.ready);
  }

  engine::Time advance(engine::Time next, sim::OutsideEvents& outside) override {
    engine::Time t = engine::kTimeMax;
    for (const auto& [run, p] : live_)
      if (!p.reported) t = std::min(t, p.end);
    for (const auto& f : script) t = std::min(t, f.at);
    for (const auto& s : submits) t = std::min(t, s.first);
    for (const auto& k : kills) t = std::min(t, k.first);
    for (const auto& s : scales) t = std::min(t, s.at);
    if (look_at >= 0) t = std::min(t, look_at);
    for (const auto& [host, at] : backs_) t = std::min(t, at);
    if (next <= t) return record(next);
    for (auto& [run, p] : live_)
      if (!p.reported && p.end == t) {
        p.reported = true;
        outside.run_ended(run, t);
      }
    for (auto it = script.begin(); it != script.end();) {
      if (it->at != t) {
        ++it;
        continue;
      }
      for (const auto& [run, p] : live_)
        if (p.job == it->job) {
          if (it->whole_host) {
            outside.host_lost(p.host, t);
            backs_.emplace(p.host, t + it->back_after);
          } else {
            outside.run_failed(run, p.host, t);
          }
          break;
        }
      it = script.erase(it);
    }
    for (auto it = submits.begin(); it != submits.end();)
      if (it->first == t) {
        submitted.push_back(outside.submit(it->second, t));
        it = submits.erase(it);
      } else {
        ++it;
      }
    for (auto it = kills.begin(); it != kills.end();)
      if (it->first == t) {
        kill_results.push_back(outside.kill(it->second, t));
        it = kills.erase(it);
      } else {
        ++it;
      }
    while (!scales.empty() && scales.front().at == t) {
      scaled.push_back(outside.scale_service(scales.front().service, scales.front().instances, t));
      scales.erase(scales.begin());
    }
    if (look_at == t) {
      view.now = t;
      outside.inspect(view, 100, false);
      look_at = -1;
    }
    for (auto it = backs_.begin(); it != backs_.end();) {
      if (it->second == t) {
        outside.host_back(it->first, t);
        it = backs_.erase(it);
      } else {
        ++it;
      }
    }
    return record(t);
  }

 private:
  struct Proc {
    workload::JobId job;
    cluster::HostId host;
    engine::Time ready;
    engine::Time end;
    bool reported = false;
  };
  engine::Time record(engine::Time t) {
    if (t != engine::kTimeMax) instants.push_back(t);
    return t;
  }
  std::map<sim::RunId, Proc> live_;
  std::map<cluster::HostId, engine::Time> backs_;
};

// One run of `rows` driven by `world`.
struct DrivenRun {
  cluster::GpuCatalog catalog = small_catalog();
  cluster::Topology topo;
  VectorSource source;
  std::unique_ptr<perf::PerfModel> perf = perf::make_trace_rate_model();
  metrics::Collector collector;
  RecordingObserver observer;
  sim::SimulationStats stats;

  DrivenRun(const cluster::ClusterSpec& spec, const std::vector<JobRow>& rows, ScriptedWorld& world,
            lifecycle::LifecycleConfig lifecycle = {}, const workload::LongRunningWork* long_running = nullptr)
      : topo(spec, catalog), source(rows), collector(topo, 60 * kMicrosPerSecond), observer(topo, collector) {
    std::unique_ptr<workload::JobSource> mixed;
    if (long_running)
      mixed = std::make_unique<workload::MixedSource>(std::make_unique<BorrowedSource>(source), *long_running);
    sim::Simulation simulation(topo, scheduler_config("best-fit"), mixed ? *mixed : source, *perf, observer, "memory",
                               lifecycle, nullptr, sim::Driver{&world, &world});
    if (long_running) simulation.use_long_running(*long_running);
    stats = simulation.run();
  }
};

const std::vector<JobRow> kQueueOfSix{{0, 100, 1, 4}, {0, 50, 2, 4}, {10, 30, 1, 8}, {20, 80, 1, 2},
                                      {25, 10, 1, 1}, {40, 60, 2, 2}};

}  // namespace

TEST_CASE("Emulation.Loop.outside_ends_at_the_perf_models_times_give_the_simulation") {
  SimRun simulated(uniform_cluster(1, 2, 8), scheduler_config("best-fit"), kQueueOfSix);
  ScriptedWorld world;
  DrivenRun driven(uniform_cluster(1, 2, 8), kQueueOfSix, world);
  for (workload::JobId id = 0; id < kQueueOfSix.size(); ++id) {
    CAPTURE(id);
    CHECK(driven.observer.job(id).starts == simulated.job(id).starts);
    CHECK(driven.observer.job(id).end == simulated.job(id).end);
  }
  CHECK(driven.stats.instants == simulated.stats.instants);
  CHECK(std::is_sorted(world.instants.begin(), world.instants.end()));
}

TEST_CASE("Emulation.Loop.a_task_that_dies_fails_its_jobs_attempt_which_restarts") {
  ScriptedWorld world;
  world.script.push_back({sec(30), 0});  // job 0 (100 s alone) dies at 30 s
  DrivenRun driven(uniform_cluster(1, 1, 8), {{0, 100, 1, 4}}, world);
  const auto& j = driven.observer.job(0);
  REQUIRE(j.starts.size() == 2);
  CHECK(j.starts[1] == sec(30));
  // No checkpoint costs (interval 0: nothing is ever lost, docs/lifecycle.md): it needs only
  // its remaining 70 s.
  CHECK(j.end == sec(100));
  CHECK(j.final_life.failures == 1);
  CHECK(j.final_life.restarts == 1);
  CHECK(driven.stats.failures == 1);
}

TEST_CASE("Emulation.Loop.a_task_that_dies_loses_the_work_since_its_last_checkpoint") {
  ScriptedWorld world;
  world.script.push_back({sec(30), 0});
  lifecycle::LifecycleConfig lc;
  lc.checkpoint_set = true;
  lc.checkpoint.interval = sec(25);
  DrivenRun driven(uniform_cluster(1, 1, 8), {{0, 100, 1, 4}}, world, lc);
  // It keeps the checkpoint at 25 s of work and needs 75 s more from its restart at 30 s.
  CHECK(driven.observer.job(0).end == sec(105));
}

TEST_CASE("Emulation.Loop.a_task_dying_more_often_than_the_retries_fails_the_job_for_good") {
  ScriptedWorld world;
  for (double t : {10, 20, 30}) world.script.push_back({sec(t), 0});
  lifecycle::LifecycleConfig lc;
  lc.max_retries = 2;
  DrivenRun driven(uniform_cluster(1, 1, 8), {{0, 100, 1, 4}}, world, lc);
  CHECK(driven.observer.job(0).fails == 1);
  CHECK(driven.observer.job(0).finishes == 0);
  CHECK(driven.collector.jobs()[0].state == sched::JobState::failed);
}

TEST_CASE("Emulation.Loop.a_lost_hosts_gpus_stay_down_until_it_is_back") {
  // Two hosts of 8: job 0 fills host 0; its host is lost at 10 s and back at 500 s. Job 1 (8
  // GPUs, submitted at 5 s) runs on host 1; job 0 waits for it (host 0 is down) and starts at
  // 205 s, when job 1 ends, not at 500 s; it kept its 10 s of work.
  ScriptedWorld world;
  world.script.push_back({sec(10), 0, true, sec(490)});
  DrivenRun driven(uniform_cluster(1, 2, 8), {{0, 100, 1, 8}, {5, 200, 1, 8}, {300, 10, 2, 8}}, world);
  const auto& j0 = driven.observer.job(0);
  REQUIRE(j0.starts.size() == 2);
  CHECK(j0.starts[1] == sec(205));
  CHECK(j0.end == sec(295));
  // Job 2 needs both hosts: only once host 0 is back.
  CHECK(driven.observer.job(2).starts.front() == sec(500));
}

TEST_CASE("Emulation.Api.a_job_submitted_from_outside_queues_and_runs_like_a_traces_job") {
  ScriptedWorld world;
  sim::SubmittedJob j;
  j.spec.tasks = 1;
  j.spec.gpus_per_task = 8;
  j.spec.duration = sec(50);
  j.name = "from-api";
  world.submits.push_back({sec(20), j});
  // The cluster is full (job 0, 8 GPUs, 100 s) until 100 s: the submitted job waits, then runs.
  DrivenRun driven(uniform_cluster(1, 1, 8), {{0, 100, 1, 8}}, world);
  REQUIRE(world.submitted == std::vector<workload::JobId>{1});
  const auto& a = driven.observer.job(1);
  CHECK(a.submits == 1);
  CHECK(a.starts.front() == sec(100));
  CHECK(a.end == sec(150));
  CHECK(driven.collector.jobs()[1].submit == sec(20));
}

TEST_CASE("Emulation.Api.a_killed_job_ends_as_failed_and_frees_its_gpus_at_once") {
  ScriptedWorld world;
  world.kills.push_back({sec(30), 0});   // running: killed
  world.kills.push_back({sec(30), 2});   // waiting: leaves the queue
  world.kills.push_back({sec(40), 0});   // ended already: refused
  DrivenRun driven(uniform_cluster(1, 1, 8), {{0, 100, 1, 8}, {10, 50, 1, 8}, {10, 50, 1, 8}}, world);
  CHECK(world.kill_results == std::vector<bool>{true, true, false});
  CHECK(driven.collector.jobs()[0].state == sched::JobState::failed);
  CHECK(driven.collector.jobs()[2].state == sched::JobState::failed);
  CHECK(driven.observer.job(2).starts.empty());
  // Job 1 gets the GPUs at the kill, not at 100 s.
  CHECK(driven.observer.job(1).starts.front() == sec(30));
  CHECK(driven.observer.job(0).final_life.failures == 0);  // a kill is not a failure
}

TEST_CASE("Emulation.Api.inspect_shows_hosts_jobs_and_why_they_wait") {
  ScriptedWorld world;
  world.look_at = sec(20);
  DrivenRun driven(uniform_cluster(1, 2, 8), {{0, 100, 1, 8}, {0, 100, 1, 4}, {10, 50, 1, 8}, {15, 50, 1, 1}}, world);
  const auto& v = world.view;
  REQUIRE(v.hosts.size() == 2);
  CHECK(v.hosts[0].free + v.hosts[1].free == 4);
  CHECK(v.running_jobs == 2);
  CHECK(v.pending_jobs == 2);
  REQUIRE(v.jobs.size() == 4);
  CHECK(v.jobs[0].state == sched::JobState::running);
  CHECK(v.jobs[0].placement == "h0:8");
  CHECK(v.jobs[0].work_done_s == doctest::Approx(20));
  CHECK(v.jobs[2].queue_position == 1);
  CHECK(v.jobs[2].waiting.find("needs 1 more task(s) of 8 GPU(s)") != std::string::npos);
  CHECK(v.jobs[3].queue_position == 2);
  CHECK(v.jobs[3].waiting == "waits behind job 2 (position 2 in the queue)");
}

TEST_CASE("Emulation.Api.a_service_scaled_up_down_to_zero_and_up_again_as_marathons_scale_stop_and_start") {
  // One host of 8 GPUs; a batch job (2 GPUs, 300 s) is job 0, the service web's first
  // instance (2 GPUs, as long as the run's other work) job 1, and late's first (from 250 s) job
  // 2 (read ahead). At 50 s web is scaled to 3: jobs 3 and 4 (web.1, web.2) start at once. At
  // 100 s back to 1: the newest two retire. At 150 s to 0 (Marathon's stop): web.0 retires. At
  // 200 s to 2 (its start again): jobs 5 and 6 (web.3, web.4) run until the batch job ends at
  // 300 s. A service nobody planned is not found; late, whose first instance has not arrived,
  // cannot be scaled up yet.
  workload::ServiceSpec web;
  web.name = "web";
  web.shape.gpus_per_task = 2;
  web.shape.cpu_given = web.shape.mem_given = true;
  workload::ServiceSpec late = web;
  late.name = "late";
  late.start = sec(250);
  workload::LongRunningWork work;
  work.services = {web, late};
  ScriptedWorld world;
  world.scales = {{sec(50), "web", 3}, {sec(60), "nope", 1}, {sec(60), "late", 2}, {sec(100), "web", 1},
                  {sec(150), "web", 0}, {sec(200), "web", 2}};
  world.look_at = sec(70);
  DrivenRun driven(uniform_cluster(1, 1, 8), {{0, 300, 1, 2}}, world, {}, &work);
  REQUIRE(world.scaled.size() == 6);
  CHECK(world.scaled[0]->before == 1);
  CHECK(world.scaled[0]->after == 3);
  CHECK_FALSE(world.scaled[1].has_value());
  CHECK(world.scaled[2]->not_started);
  CHECK(world.scaled[3]->before == 3);
  CHECK(world.scaled[4]->after == 0);
  CHECK(world.scaled[5]->before == 0);
  const auto& o = driven.observer;
  CHECK(o.job(1).starts.front() == sec(0));
  CHECK(o.job(3).starts.front() == sec(50));
  CHECK(o.job(4).starts.front() == sec(50));
  CHECK(o.job(3).end == sec(100));
  CHECK(o.job(4).end == sec(100));
  CHECK(o.job(1).end == sec(150));
  CHECK(o.job(2).starts.front() == sec(250));
  CHECK(o.job(5).starts.front() == sec(200));
  CHECK(o.job(6).starts.front() == sec(200));
  CHECK(o.job(5).end == sec(300));
  CHECK(o.job(6).end == sec(300));
  CHECK(driven.collector.jobs()[5].state == sched::JobState::finished);
  const auto& strings = driven.source.strings();
  CHECK(strings.str(driven.collector.jobs()[3].trace_id) == "web.1");
  CHECK(strings.str(driven.collector.jobs()[6].trace_id) == "web.4");
  // The view at 70 s: web wants 3 and runs 3; late has none yet.
  REQUIRE(world.view.services.size() == 2);
  CHECK(world.view.services[0].name == "web");
  CHECK(world.view.services[0].instances == 3);
  CHECK(world.view.services[0].running == 3);
  CHECK(world.view.services[1].name == "late");
  CHECK(world.view.services[1].instances == 0);
  CHECK(engine::to_seconds(driven.stats.end_time) == 300);
}

}  // namespace schedlab::testing
