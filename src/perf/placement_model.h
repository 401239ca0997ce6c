// Perf model `placement`: a job's speed is t_iter(reference placement) / t_iter(actual placement)
// for the training model it stands for, with max-min fair sharing of NICs and oversubscribed rack
// uplinks among running gangs (docs/perf-model.md).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "perf/calibration_profile.h"
#include "perf/gang_shape.h"
#include "perf/iteration_model.h"
#include "perf/model_catalog.h"
#include "perf/model_mix.h"
#include "perf/perf_model.h"
#include "util/named_args.h"
#include "util/notice.h"

namespace schedlab::perf {

enum class ReferenceShape {
  traced,    // one host per task, gpus_per_task GPUs each, all in one rack
  tightest,  // the fewest hosts of the reference GPU model, filled in order, in one rack
  // The trace duration is the job's whole work on ONE GPU of the reference model; on n GPUs
  // each iteration processes n batches (weak scaling), so a perfectly scaling job runs n
  // times faster. For scaling studies (scenarios/horovod-scaling.yaml).
  one_gpu,
};

struct PlacementModelSettings {
  ModelCatalog models;
  CalibrationProfile profile;
  bool datasheet = true;     // no perf.profile given: datasheet_profile()
  std::string profile_file;  // resolved perf.profile; empty with the datasheet
  CommSettings comm;
  bool contention = true;
  ModelMix mix;
  ReferenceShape reference = ReferenceShape::traced;
  std::optional<cluster::ModelId> reference_gpu;  // none: the cluster's most numerous model
  std::uint64_t seed = 1;
};

// Reads the `perf:` keys of a scenario (all but `model`). Valid keys: models, profile, algorithm,
// overlap, fusion_mb, ps_servers, contention, model_mix, reference, reference_gpu. Relative paths
// are resolved against `scenario_file`; `models` defaults to ../configs/models.yaml from it.
PlacementModelSettings parse_placement_settings(const util::NamedArgs& args, const std::string& scenario_file,
                                                const cluster::Topology& topo, std::uint64_t seed);

// `notices` (may be null): where it says that it uses datasheet figures (no profile given).
std::unique_ptr<PerfModel> make_placement_model(PlacementModelSettings settings, const cluster::Topology& topo,
                                                util::Notices* notices = nullptr);

// The reference shape of a job (exposed for tests and `schedlab model explain`).
std::vector<ShapeHost> reference_hosts(const workload::JobSpec& job, ReferenceShape reference,
                                              cluster::ModelId gpu, const cluster::Topology& topo);
// The cluster's most numerous GPU model (ties: the lower id).
cluster::ModelId most_numerous_model(const cluster::Topology& topo);

}  // namespace schedlab::perf
