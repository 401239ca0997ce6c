// One training iteration of a data-parallel gang: compute on the slowest GPU plus gradient
// communication by a chosen algorithm over the links the gang crosses (docs/perf-model.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/gpu_catalog.h"
#include "perf/calibration_profile.h"
#include "perf/model_catalog.h"

namespace schedlab::perf {

enum class Algorithm { ring, hierarchical, tree, parameter_server };
std::string_view algorithm_name(Algorithm a);
std::optional<Algorithm> algorithm_from_name(std::string_view name);
std::vector<std::string> algorithm_names();

struct CommSettings {
  Algorithm algorithm = Algorithm::ring;
  // Fraction of the compute time that can hide communication (gradients of late layers are sent
  // while earlier layers still run backward). 0 = no overlap; backward is ~2/3 of compute.
  double overlap = 0.0;
  // Tensor fusion: gradients go out in ceil(S / fusion_bytes) allreduce calls, each paying the
  // latency terms (Horovod's default fusion buffer is 64 MiB).
  double fusion_bytes = 64.0 * 1024 * 1024;
  int ps_servers = 0;  // parameter servers; 0 = one per host of the gang
  // Synchronous parameter-server training pays a per-iteration barrier and gRPC round trips
  // to every server, a cost that does not scale with gradient bytes. 0 by default; fitted,
  // not measured, where set (scenarios/horovod-scaling.yaml, docs/perf-model.md).
  double ps_sync_us = 0;
};

// What the iteration model needs to know about where a gang runs: sizes, GPU models and the
// effective α-β of the two link levels it crosses (already capped by the cluster's rates).
// Which figure set a tier's β in a GangShape (`model explain` names it).
enum class BetaSource : std::uint8_t {
  profile,    // the calibration profile's tier
  catalog,    // the GPU catalog's achieved figure for the model (over a datasheet tier)
  link_cap,   // the catalog's intra-host link rate (intra_gbps)
  host_line,  // the host line's bandwidth-optimal bound (across hosts)
  intra,      // the intra-host β (a flat ring across hosts is no faster than inside one)
};

struct GangShape {
  int gpus = 1;
  int hosts = 1;
  int racks = 1;
  int min_host_gpus = 1;
  int max_host_gpus = 1;
  std::vector<cluster::ModelId> gpu_models;  // distinct models in the gang
  LinkTier intra_tier = LinkTier::nvlink;    // inside a host: nvlink or pcie
  TierParams intra;
  LinkTier inter_tier = LinkTier::nic;       // between hosts: nic, rack or spine (the bottleneck)
  TierParams inter;                          // flat collectives over all ranks across hosts
  double host_line_gbps = 0;                 // per-host rate across hosts (NIC, uplink share), GB/s
  BetaSource intra_beta_from = BetaSource::profile;
  BetaSource inter_beta_from = BetaSource::profile;
};

struct CommPhase {
  std::string name;  // "allreduce", "reduce-scatter", "inter-host allreduce", "push", ...
  LinkTier tier = LinkTier::nvlink;
  int ranks = 0;
  double bytes = 0;  // per call, per rank
  int calls = 1;
  double us = 0;     // all calls
};

struct IterationBreakdown {
  std::string gpu;          // the slowest GPU model, which sets the pace
  double per_gpu_samples_per_s = 0;  // on the slowest GPU, after the model's host_gpu_slowdown
  double compute_us = 0;
  std::vector<CommPhase> phases;
  double comm_us = 0;
  double hidden_us = 0;     // communication overlapped with compute
  double iteration_us = 0;  // compute + comm − hidden
  double samples_per_s = 0; // whole gang
  std::optional<LinkTier> bottleneck;  // the tier of the most expensive phase; none without comm
};

IterationBreakdown iteration_time(const TrainingModel& model, const GangShape& shape, const CommSettings& settings,
                                  const cluster::GpuCatalog& catalog, const CalibrationProfile& profile);
// The same into `out`, its storage (phases, names) reused: for a gang priced again at every
// move of its share of the links.
void iteration_time(const TrainingModel& model, const GangShape& shape, const CommSettings& settings,
                    const cluster::GpuCatalog& catalog, const CalibrationProfile& profile, IterationBreakdown& out);

}  // namespace schedlab::perf
