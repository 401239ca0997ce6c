// The performance model: how fast a job runs on the placement it was given, relative to
// its traced run. The simulator asks it for every run it starts; the scheduler never does.
#pragma once

#include <memory>
#include <string>

#include "cluster/placement.h"
#include "workload/job_spec.h"

namespace schedlab::perf {

class PerfModel {
 public:
  virtual ~PerfModel() = default;
  virtual std::string name() const = 0;
  // Speed relative to the trace: the run takes duration / speed. Must be > 0.
  virtual double speed(const workload::JobSpec& job, const cluster::Placement& placement,
                       const cluster::Topology& topo) const = 0;
};

// `trace`: every job runs exactly as long as its trace says, wherever it is placed.
std::unique_ptr<PerfModel> make_trace_rate_model();

}  // namespace schedlab::perf
