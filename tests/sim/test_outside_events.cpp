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
  std::vector<engine::Time> instants;  // what advance() returned

  void start(sim::RunId run, const workload::JobSpec& job, const cluster::Placement& placement, engine::Time now,
             double work, engine::Time delay) override {
    live_[run] = Proc{job.id, placement.tasks.front().host, now + delay + static_cast<engine::Time>(std::ceil(work))};
  }
  bool is_current(const engine::Event& e) const override { return live_.count(e.subject) > 0; }
  void finished(sim::RunId run, engine::Time) override { live_.erase(run); }
  double stop(sim::RunId run, engine::Time now, bool) override {
    double done = progress(run, now);
    live_.erase(run);
    return done;
  }
  double progress(sim::RunId, engine::Time) const override { return 0; }

  engine::Time advance(engine::Time next, sim::OutsideEvents& outside) override {
    engine::Time t = engine::kTimeMax;
    for (const auto& [run, p] : live_)
      if (!p.reported) t = std::min(t, p.end);
    for (const auto& f : script) t = std::min(t, f.at);
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
            sim::LifecycleConfig lifecycle = {})
      : topo(spec, catalog), source(rows), collector(topo, 60 * kMicrosPerSecond), observer(topo, collector) {
    sim::Simulation simulation(topo, scheduler_config("best-fit"), source, *perf, observer, "memory", lifecycle,
                               nullptr, sim::Driver{&world, &world});
    stats = simulation.run();
  }
};

const std::vector<JobRow> kQueueOfSix{{0, 100, 1, 4}, {0, 50, 2, 4}, {10, 30, 1, 8}, {20, 80, 1, 2},
                                      {25, 10, 1, 1}, {40, 60, 2, 2}};

}  // namespace

TEST_CASE("Emulation.Loop.OutsideEndsAtThePerfModelsTimesGiveTheSimulation") {
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

TEST_CASE("Emulation.Loop.ATaskThatDiesFailsItsJobsAttemptWhichRestarts") {
  ScriptedWorld world;
  world.script.push_back({sec(30), 0});  // job 0 (100 s alone) dies at 30 s
  DrivenRun driven(uniform_cluster(1, 1, 8), {{0, 100, 1, 4}}, world);
  const auto& j = driven.observer.job(0);
  REQUIRE(j.starts.size() == 2);
  CHECK(j.starts[1] == sec(30));
  // No checkpoint: it starts over and needs its whole 100 s again.
  CHECK(j.end == sec(130));
  CHECK(j.final_life.failures == 1);
  CHECK(j.final_life.restarts == 1);
  CHECK(driven.stats.failures == 1);
}

TEST_CASE("Emulation.Loop.ATaskDyingMoreOftenThanTheRetriesFailsTheJobForGood") {
  ScriptedWorld world;
  for (double t : {10, 20, 30}) world.script.push_back({sec(t), 0});
  sim::LifecycleConfig lc;
  lc.max_retries = 2;
  DrivenRun driven(uniform_cluster(1, 1, 8), {{0, 100, 1, 4}}, world, lc);
  CHECK(driven.observer.job(0).fails == 1);
  CHECK(driven.observer.job(0).finishes == 0);
  CHECK(driven.collector.jobs()[0].state == sched::JobState::failed);
}

TEST_CASE("Emulation.Loop.ALostHostsGpusStayDownUntilItIsBack") {
  // Two hosts of 8: job 0 fills host 0; its host is lost at 10 s and back at 500 s. Job 1 (8
  // GPUs, submitted at 5 s) runs on host 1; job 0 waits for it (host 0 is down) and starts at
  // 205 s, when job 1 ends, not at 500 s.
  ScriptedWorld world;
  world.script.push_back({sec(10), 0, true, sec(490)});
  DrivenRun driven(uniform_cluster(1, 2, 8), {{0, 100, 1, 8}, {5, 200, 1, 8}, {300, 10, 2, 8}}, world);
  const auto& j0 = driven.observer.job(0);
  REQUIRE(j0.starts.size() == 2);
  CHECK(j0.starts[1] == sec(205));
  CHECK(j0.end == sec(305));
  // Job 2 needs both hosts: only once host 0 is back.
  CHECK(driven.observer.job(2).starts.front() == sec(500));
}

}  // namespace schedlab::testing
