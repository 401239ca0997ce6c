// Host searches across a set of GPU models, shared by the placement policies. Each answers
// over the allocation indexes, never by scanning every host. Every search takes the task's
// CPUs and memory (PendingJob::need()) and returns only hosts that have them too.
#pragma once

#include <bit>
#include <optional>
#include <vector>

#include "sched/parts.h"

namespace schedlab::sched {

template <class F>
void for_each_model(cluster::ModelMask mask, std::size_t models, F&& f) {
  // The mask's bits only, lowest first (a job allows one or a few of the catalog's models).
  if (models < 64) mask &= (cluster::ModelMask{1} << models) - 1;
  for (; mask != 0; mask &= mask - 1) f(static_cast<cluster::ModelId>(std::countr_zero(mask)));
}

// Lowest-id host of an allowed model with at least k free GPUs and `need`.
std::optional<cluster::HostId> first_fit_host(const cluster::AllocationState& a, cluster::ModelMask mask,
                                              std::uint16_t k, const cluster::TaskNeed& need = {});
// Host with the fewest free GPUs that still has k and `need` (lowest id on ties).
std::optional<cluster::HostId> tightest_host(const cluster::AllocationState& a, cluster::ModelMask mask,
                                             std::uint16_t k, const cluster::TaskNeed& need = {});

// The slot of one task of `job` on host h: g whole GPUs (0 for a share or a job without
// GPUs), its share, and its CPUs and memory.
cluster::TaskSlot task_slot(const PendingJob& job, cluster::HostId h, std::uint16_t g);

// Places one fractional task (a share of one GPU). `tightest`: onto the fullest shared GPU
// with room, else a GPU of the tightest host; otherwise the lowest-id host that can take it.
bool place_share(const PendingJob& job, cluster::ModelMask mask, bool tightest, cluster::AllocationTransaction& tx,
                 std::vector<cluster::TaskSlot>& out);

// Places up to `want` tasks of a job that needs no GPU, each on the host `pick` ranks first
// among the classes of `mask` (AllocationState::cpu_host); `fill` puts as many tasks on each
// chosen host as fit (first fit). Stops when no host fits.
void place_without_gpu(const PendingJob& job, std::uint32_t want, cluster::ModelMask mask, cluster::HostPick pick,
                       bool fill, cluster::AllocationTransaction& tx, std::vector<cluster::TaskSlot>& out);

}  // namespace schedlab::sched
