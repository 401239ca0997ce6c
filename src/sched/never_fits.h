// "Never fits": why a job could not run on this cluster however long it waited (more tasks,
// GPUs, CPUs or memory than the whole cluster, or one host, could ever hold, or no host its
// filters allow), checked once at submit, where the job is then dropped with this reason. A
// plain function over the cluster's distinct host shapes, so that it is tested table by table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster/gpu_catalog.h"
#include "cluster/topology.h"
#include "sched/pending_job.h"

namespace schedlab::sched {

// Hosts of one shape (a few per cluster file) and how many the cluster has.
struct HostShape {
  std::size_t cls = 0;  // Topology::class_of: the GPU model, or catalog.size() for hosts without GPUs
  std::uint16_t gpus = 0;
  std::uint32_t cpu_milli = 0, mem_mib = 0;
  std::uint64_t count = 0;
};

// The cluster's distinct host shapes with their counts, in (class, GPUs, CPUs, memory) order.
std::vector<HostShape> host_shapes(const cluster::Topology& topo);

// Why `job` never fits, or nothing when some group of `groups` (the model sets it may use,
// one per generation under a one-generation filter) could hold all its tasks at once on an
// empty cluster of `shapes`. `job.requested` names the models in the message.
std::optional<std::string> never_fits(const PendingJob& job, const std::vector<cluster::ModelMask>& groups,
                                      const std::vector<HostShape>& shapes, const cluster::GpuCatalog& catalog);

}  // namespace schedlab::sched
