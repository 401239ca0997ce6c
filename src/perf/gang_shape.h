// From a placement on a topology (or a hypothetical shape) to the GangShape the iteration
// model prices: which tiers the gang crosses and their effective α-β, capped by the cluster.
#pragma once

#include <limits>
#include <vector>

#include "cluster/placement.h"
#include "cluster/topology.h"
#include "perf/calibration_profile.h"
#include "perf/iteration_model.h"

namespace schedlab::perf {

// One host of a gang, as the shape builder sees it.
struct ShapeHost {
  cluster::ModelId model = 0;
  int gpus = 1;
  double nic_gbps = 0;     // host NIC, GB/s per direction
  cluster::RackId rack = 0;
};

// The rate each host of the gang gets across racks, and which tier limits it.
struct CrossRackRate {
  double gbps = 0;  // per host, GB/s; ignored when the gang is in one rack
  LinkTier tier = LinkTier::rack;
};

// Builds the shape. Over a datasheet tier (TierParams::datasheet), β is the catalog's achieved
// figure for the gang's models (intra_busbw_gbps inside a host, nic_busbw_gbps across hosts; the
// smallest over the gang's models) when every model has one; a measured tier is kept as it is.
// Intra-host: nvlink tier for NVLink models, pcie otherwise; β capped by the
// catalog's intra_gbps (NVLink: the two-direction total, as NVLink SHARP can pass the one-way rate;
// PCIe: one direction, intra_gbps / 2). Across hosts: the host line L = min(NIC of the gang's
// hosts, cross-rack rate when it spans racks); β capped by the bandwidth-optimal bound on bus
// bandwidth, L·h(n−1)/((h−1)n) (every host must send 2(h−1)/h·S through its line), and by the
// intra β.
GangShape make_gang_shape(const std::vector<ShapeHost>& hosts, const cluster::GpuCatalog& catalog,
                          const CalibrationProfile& profile, const CrossRackRate& cross_rack);

// make_gang_shape in two halves, for a gang priced again and again as its share of the links
// moves (the placement model's shared links): what it reads of the hosts, whatever the rates,
// once; then the shape at given rates, into storage reused from call to call.
struct GangHosts {
  int gpus = 0;
  int hosts = 0;
  int racks = 0;
  int min_host_gpus = std::numeric_limits<int>::max();
  int max_host_gpus = 0;
  std::vector<cluster::ModelId> gpu_models;  // distinct, increasing
  double line = std::numeric_limits<double>::infinity();  // the least NIC
  bool all_nvlink = true;
  double intra_cap = std::numeric_limits<double>::infinity();
  // The catalog's achieved figures: the least over the models, and whether every model has one.
  double intra_busbw = std::numeric_limits<double>::infinity(), nic_busbw = intra_busbw;
  bool all_intra_busbw = true, all_nic_busbw = true;
};
GangHosts gang_hosts(const std::vector<ShapeHost>& hosts, const cluster::GpuCatalog& catalog);
// The shape of those hosts with every NIC capped at `nic_cap` (the same as make_gang_shape over
// hosts whose nic_gbps is min(nic_gbps, nic_cap): the least NIC is then min(line, nic_cap)).
void gang_shape_at(const GangHosts& gang, const CalibrationProfile& profile, const CrossRackRate& cross_rack,
                   double nic_cap, GangShape& out);

// The hosts of a placement, in first-appearance order (GPUs summed per host; a share counts 1).
std::vector<ShapeHost> shape_hosts(const cluster::Placement& placement, const cluster::Topology& topo);

// The distinct racks of a placement, increasing.
std::vector<cluster::RackId> placement_racks(const cluster::Placement& placement, const cluster::Topology& topo);

// Cross-rack rate without knowledge of other jobs: each host gets its share of its rack's uplink
// if every host of the rack sent at once (uplink / hosts in rack = NIC / oversubscription), and of
// the spine (spine_gbps / all hosts) when the spine is limited. The smallest over the racks crossed.
CrossRackRate static_cross_rack_rate(const std::vector<cluster::RackId>& racks, const cluster::Topology& topo);

}  // namespace schedlab::perf
