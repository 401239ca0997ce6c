// What a run reports as it goes. The simulation calls these; metrics, timelines and logs
// subscribe. Observers never influence scheduling.
#pragma once

#include <cstdint>
#include <string>

#include "cluster/placement.h"
#include "engine/time.h"
#include "workload/job_spec.h"

namespace schedlab::metrics {

// The cluster after the scheduler ran at one instant; holds until the next instant.
struct InstantState {
  engine::Time now = 0;
  std::uint64_t used_milli = 0;       // GPU-thousandths held by running tasks
  std::uint64_t free_gpus = 0;        // wholly free GPUs
  std::uint64_t running_jobs = 0;
  std::uint64_t pending_jobs = 0;
  std::uint64_t fragmented_gpus = 0;  // free GPUs the first pending job cannot use
};

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void on_submit(const workload::JobSpec& /*job*/, engine::Time /*now*/) {}
  virtual void on_drop(const workload::JobSpec& /*job*/, engine::Time /*now*/, const std::string& /*reason*/) {}
  // Some of the job's tasks start; `first` for the job's first start.
  virtual void on_start(const workload::JobSpec& /*job*/, const cluster::Placement& /*tasks*/, engine::Time /*now*/,
                        bool /*first*/) {}
  // Tasks started together end together (a "run"); `job_done` when it was the job's last.
  virtual void on_run_end(const workload::JobSpec& /*job*/, const cluster::Placement& /*tasks*/,
                          engine::Time /*start*/, engine::Time /*now*/, bool /*job_done*/) {}
  virtual void on_instant(const InstantState& /*state*/) {}
  virtual void on_finish(engine::Time /*now*/) {}
};

}  // namespace schedlab::metrics
