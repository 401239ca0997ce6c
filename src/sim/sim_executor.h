// The simulate executor: a run's remaining work (trace microseconds at speed 1) drains at
// the perf model's speed for its placement; its end is a completion event in the engine's
// queue. When a shared-link model changes a run's speed, the remaining work is brought up
// to date and the completion moves (the old event is recognised as stale by its version).
// Under a batch-adapting policy (charge_goodput) a run drains at its speed times the perf
// model's goodput ratio, constant within each whole percent of the job's work
// (perf/goodput_steps.h), so its end is still known exactly when it starts.
#pragma once

#include <vector>

#include "engine/event_queue.h"
#include "perf/goodput_steps.h"
#include "perf/perf_model.h"
#include "sim/executor.h"
#include "util/id_map.h"

namespace schedlab::sim {

class SimExecutor final : public Executor {
 public:
  SimExecutor(engine::EventQueue& queue, perf::PerfModel& perf, const cluster::Topology& topo)
      : queue_(&queue), perf_(&perf), topo_(&topo) {}
  void start(RunId run, const workload::JobSpec& job, const cluster::Placement& placement, engine::Time now,
             double work, engine::Time delay) override;
  bool is_current(const engine::Event& completion) const override;
  void finished(RunId run, engine::Time now) override;
  double stop(RunId run, engine::Time now, bool graceful) override;
  double progress(RunId run, engine::Time now) const override;
  void settle(engine::Time now) override;
  // From now on every run progresses at speed x goodput ratio (set before the first start).
  void charge_goodput() { charge_goodput_ = true; }

 private:
  struct Progress {
    double work = 0;       // the run's work when it started
    double remaining = 0;  // trace microseconds left at speed 1, as of `since`
    double speed = 1;
    engine::Time since = 0;     // when `remaining` was last brought up to date
    engine::Time ready_at = 0;  // progress starts here (after a restore)
    std::uint32_t version = 0;
  };
  void schedule_end(RunId run, Progress& p, engine::Time now);
  // Remaining work at `now` (no earlier than the last update).
  double remaining_at(RunId run, const Progress& p, engine::Time now) const;

  engine::EventQueue* queue_;
  perf::PerfModel* perf_;
  const cluster::Topology* topo_;
  util::IdMap<Progress> runs_;
  util::IdMap<perf::StepProfile> charges_;  // charged runs only: their goodput ratio per step
  bool charge_goodput_ = false;
  std::vector<double> ratios_;  // scratch: a starting run's ratios
  std::vector<std::pair<std::uint64_t, double>> changes_;
};

}  // namespace schedlab::sim
