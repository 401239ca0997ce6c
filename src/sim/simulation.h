// One simulated run: pulls jobs from a JobSource, drives the scheduler once per instant of
// the engine's clock, starts runs through the executor, and reports to observers.
#pragma once

#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "cluster/allocation.h"
#include "engine/event_queue.h"
#include "metrics/observer.h"
#include "perf/perf_model.h"
#include "sched/scheduler.h"
#include "sim/executor.h"

namespace schedlab::sim {

struct SimulationStats {
  std::uint64_t events = 0;
  std::uint64_t instants = 0;
  std::uint64_t jobs = 0;
  engine::Time end_time = 0;
};

class Simulation {
 public:
  Simulation(const cluster::Topology& topo, const sched::SchedulerConfig& scheduler, workload::JobSource& source,
             perf::PerfModel& perf, metrics::RunObserver& observer, std::string trace_name);

  SimulationStats run();

 private:
  struct Run {
    workload::JobId job;
    engine::Time start;
    cluster::Placement placement;
  };
  struct JobState {
    std::uint32_t runs_active = 0;
    bool started = false;  // some task has started (the job counts as running until done)
    bool fully_started = false;
  };

  bool pull_next_job();
  cluster::ModelMask requested_models(const workload::JobSpec& job);
  void handle(const engine::Event& e);
  void start_decided(engine::Time now);
  metrics::InstantState snapshot(engine::Time now) const;

  const cluster::Topology& topo_;
  workload::JobSource& source_;
  metrics::RunObserver& observer_;
  std::string trace_name_;
  engine::EventQueue queue_;
  cluster::AllocationState alloc_;
  sched::Scheduler scheduler_;
  std::unique_ptr<Executor> executor_;
  std::deque<workload::JobSpec> jobs_;  // stable addresses: the scheduler holds pointers
  std::vector<JobState> job_state_;
  std::unordered_map<RunId, Run> runs_;
  RunId next_run_ = 0;
  std::uint64_t running_jobs_ = 0;
  std::unordered_map<workload::Label, cluster::ModelMask> request_cache_;
  std::vector<sched::StartDecision> starts_;
  SimulationStats stats_;
};

}  // namespace schedlab::sim
