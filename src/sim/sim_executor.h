// The simulate executor: a run ends after its trace duration divided by the perf model's
// speed for its placement, as a completion event in the engine's queue.
#pragma once

#include "engine/event_queue.h"
#include "perf/perf_model.h"
#include "sim/executor.h"

namespace schedlab::sim {

class SimExecutor final : public Executor {
 public:
  SimExecutor(engine::EventQueue& queue, const perf::PerfModel& perf, const cluster::Topology& topo)
      : queue_(&queue), perf_(&perf), topo_(&topo) {}
  void start(RunId run, const workload::JobSpec& job, const cluster::Placement& placement, engine::Time now) override;

 private:
  engine::EventQueue* queue_;
  const perf::PerfModel* perf_;
  const cluster::Topology* topo_;
};

}  // namespace schedlab::sim
