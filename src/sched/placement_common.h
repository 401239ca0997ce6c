// Host searches across a set of GPU models, shared by the placement policies. Each answers
// over the allocation indexes, never by scanning every host.
#pragma once

#include <optional>
#include <vector>

#include "sched/parts.h"

namespace schedlab::sched {

template <class F>
void for_each_model(cluster::ModelMask mask, std::size_t models, F&& f) {
  for (cluster::ModelId m = 0; m < models; ++m)
    if (mask >> m & 1) f(m);
}

// Lowest-id host of an allowed model with at least k free GPUs.
std::optional<cluster::HostId> first_fit_host(const cluster::AllocationState& a, cluster::ModelMask mask, std::uint16_t k);
// Host with the fewest free GPUs that still has k (lowest id on ties).
std::optional<cluster::HostId> tightest_host(const cluster::AllocationState& a, cluster::ModelMask mask, std::uint16_t k);

// Places one fractional task (a share of one GPU). `tightest`: onto the fullest shared GPU
// with room, else a GPU of the tightest host; otherwise the lowest-id host that can take it.
bool place_share(const PendingJob& job, cluster::ModelMask mask, bool tightest, cluster::AllocationTransaction& tx,
                 std::vector<cluster::TaskSlot>& out);

}  // namespace schedlab::sched
