// Collective communication costs as pure α-β functions (µs), one per algorithm phase.
// A `TierParams` gives α (µs per step), β (bus bandwidth, GB/s) and a per-size correction.
#pragma once

#include "perf/calibration_profile.h"

namespace schedlab::perf {

// Ring allreduce: 2(n−1)·α + 2(n−1)/n · S/β, times the tier's correction at S. 0 for n < 2.
double ring_allreduce_us(int ranks, double bytes, const TierParams& link);
// Ring reduce-scatter (or all-gather, the same cost): (n−1)·α + (n−1)/n · S/β, times correction.
double ring_reduce_scatter_us(int ranks, double bytes, const TierParams& link);
// Pipelined (double binary) tree allreduce: 2·⌈log2 n⌉·α + 2·S/β_tree where β_tree is the
// per-rank link rate; as β is a bus bandwidth (ring: busbw = link rate), β_tree = β. 0 for n < 2.
double tree_allreduce_us(int ranks, double bytes, const TierParams& link);
// Parameter server, push then pull. Each direction: α + max(g·S/B_w, n·S/(k·B_s)), where g workers
// share one host link of rate B_w (GB/s), k servers each have B_s, n workers in all. 0 for n < 2.
double parameter_server_us(int workers, int workers_per_host, int servers, double bytes, double alpha_us,
                           double worker_gbps, double server_gbps);

}  // namespace schedlab::perf
