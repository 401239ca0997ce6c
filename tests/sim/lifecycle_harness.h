// Test helpers for runs where jobs stop and come back: a simulation with a LifecycleConfig and
// a failure trace written to a temporary file, recording every life step beside the usual
// observer log (tests/support/sim_harness.h).
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lifecycle/failures.h"
#include "../support/sim_harness.h"

namespace schedlab::testing {

// A JobRow with its trace checkpoint columns (negative = not in the trace).
struct CkptRow {
  JobRow row;
  float interval_s = -1, save_s = -1, restore_s = -1;
};

// Jobs from memory, checkpoint columns included.
class CkptSource final : public SpecListSource {
 public:
  explicit CkptSource(const std::vector<CkptRow>& rows) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      workload::JobSpec j = spec_of(rows[i].row, i);
      j.ckpt_interval_s = rows[i].interval_s;
      j.ckpt_save_s = rows[i].save_s;
      j.ckpt_restore_s = rows[i].restore_s;
      jobs_.push_back(j);
    }
  }
};

// One recorded life step, with a copy of the job's life at that moment.
struct LifeRecord {
  metrics::LifeStep step;
  engine::Time now;
  workload::JobId job;
  sched::StopCause cause;
  double lost_work_s;
  sched::JobLife life;
};

// Forwards everything to a RecordingObserver and keeps the life steps.
class LifeRecorder final : public metrics::RunObserver {
 public:
  explicit LifeRecorder(RecordingObserver& inner) : inner_(&inner) {}
  void on_submit(const workload::JobSpec& j, engine::Time t) override { inner_->on_submit(j, t); }
  void on_drop(const workload::JobSpec& j, engine::Time t, const std::string& r) override { inner_->on_drop(j, t, r); }
  void on_start(const workload::JobSpec& j, const cluster::Placement& p, engine::Time t, bool first) override {
    inner_->on_start(j, p, t, first);
  }
  void on_run_end(const workload::JobSpec& j, const cluster::Placement& p, engine::Time s, engine::Time t,
                  bool done) override {
    inner_->on_run_end(j, p, s, t, done);
  }
  void on_life(const metrics::LifeEvent& e) override {
    lives.push_back({e.step, e.now, e.job->id, e.cause, e.lost_work_s, *e.life});
    inner_->on_life(e);
  }
  void on_instant(const metrics::InstantState& s) override {
    down_gpus[s.now] = s.down_gpus;
    inner_->on_instant(s);
  }
  void on_finish(engine::Time t) override { inner_->on_finish(t); }

  std::vector<LifeRecord> lives;
  std::map<engine::Time, std::uint64_t> down_gpus;  // at each instant

 private:
  RecordingObserver* inner_;
};

// Writes `text` to a fresh file under the temporary folder and returns its path.
inline std::string temp_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "schedlab_lifecycle_tests";
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

// One simulation with a lifecycle and a failure trace (CSV text, "" = no failures).
struct LifeRun {
  cluster::GpuCatalog catalog;
  cluster::Topology topo;
  CkptSource source;
  std::unique_ptr<perf::PerfModel> perf;
  metrics::Collector collector;
  RecordingObserver observer;
  LifeRecorder recorder;
  sim::SimulationStats stats;

  LifeRun(const cluster::ClusterSpec& spec, const std::vector<CkptRow>& rows, lifecycle::LifecycleConfig lifecycle,
          const std::string& failure_csv, const std::string& name = "failures.csv",
          const sched::SchedulerConfig& config = scheduler_config("first-fit"))
      : catalog(small_catalog()),
        topo(spec, catalog),
        source(rows),
        perf(perf::make_trace_rate_model()),
        collector(topo, 60 * kMicrosPerSecond),
        observer(topo, collector),
        recorder(observer) {
    std::unique_ptr<lifecycle::FailureSource> failures;
    if (!failure_csv.empty()) failures = lifecycle::open_failure_trace(temp_file(name, failure_csv), topo);
    sim::Simulation simulation(topo, config, source, *perf, recorder, "memory", lifecycle,
                               failures.get());
    stats = simulation.run();
  }

  double end_s(workload::JobId id) const { return engine::to_seconds(observer.job(id).end); }
  std::vector<double> starts_s(workload::JobId id) const {
    std::vector<double> out;
    for (auto t : observer.job(id).starts) out.push_back(engine::to_seconds(t));
    return out;
  }
  // The job's last recorded life step.
  const LifeRecord& last(workload::JobId id) const {
    for (auto it = recorder.lives.rbegin(); it != recorder.lives.rend(); ++it)
      if (it->job == id) return *it;
    FAIL("no life step for job " << id);
    return recorder.lives.front();
  }
  std::vector<metrics::LifeStep> steps(workload::JobId id) const {
    std::vector<metrics::LifeStep> out;
    for (const auto& l : recorder.lives)
      if (l.job == id) out.push_back(l.step);
    return out;
  }
};

inline lifecycle::LifecycleConfig lifecycle_config(double interval_s, double save_s, double restore_s,
                                                  std::uint32_t max_retries = 3) {
  lifecycle::LifecycleConfig c;
  c.checkpoint_set = true;
  c.checkpoint = {sec(interval_s), sec(save_s), sec(restore_s)};
  c.max_retries = max_retries;
  return c;
}

}  // namespace schedlab::testing
