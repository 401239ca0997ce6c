// The scheduler's view of a job that has not fully started: its spec, the GPU models it
// may use, how many of its tasks are still to be placed, and since when it waits.
#pragma once

#include <cstdint>

#include "cluster/allocation.h"
#include "cluster/gpu_catalog.h"
#include "engine/time.h"
#include "workload/job_spec.h"

namespace schedlab::sched {

struct PendingJob {
  const workload::JobSpec* spec = nullptr;
  cluster::ModelMask requested = 0;  // models the job's request names (all if none)
  std::uint32_t tasks_left = 0;      // tasks not yet started
  engine::Time waiting_since = 0;    // when it entered the queue (submit, or requeue after a stop)
  // Models the job may use after all filters (set by the scheduler when the job is queued);
  // with kHostsWithoutGpus when a job that needs no GPU may use the CPU-only hosts.
  cluster::ModelMask allowed = 0;
  // Under a one-generation filter, the generation its started tasks run on (0 = none yet):
  // tasks that start later must join them.
  int generation = 0;

  workload::JobId id() const { return spec->id; }
  cluster::TaskNeed need() const { return {spec->cpu_milli, spec->mem_mib}; }
};

}  // namespace schedlab::sched
