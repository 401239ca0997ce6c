// The performance model: how fast a job runs on the placement it was given, relative to
// its traced run. The simulator asks it for every run it starts; the scheduler never does.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cluster/placement.h"
#include "workload/checkpoint.h"
#include "workload/job_spec.h"

namespace schedlab::perf {

// Speeds a model may give: a run at most a billion times slower or faster than traced. Outside
// this a model's figures combine into nonsense (a 0-second or never-ending run) and the model
// refuses them, naming its files.
inline constexpr double kMinSpeed = 1e-9, kMaxSpeed = 1e9;

class PerfModel {
 public:
  virtual ~PerfModel() = default;
  virtual std::string name() const = 0;
  // Speed relative to the trace: the run takes duration / speed. Within [kMinSpeed, kMaxSpeed].
  virtual double speed(const workload::JobSpec& job, const cluster::Placement& placement,
                       const cluster::Topology& topo) const = 0;

  // A trace may name each job's training model (JobSpec::model, a native trace's `model` column).
  // A model that knows training models takes the named one in place of its own choice; it reads
  // the names from the run's workload strings, bound here before any job is asked about
  // (`trace_name` names the file in errors). Models without training models ignore the names.
  virtual void bind_workload(const workload::StringPool& /*strings*/, const std::string& /*trace_name*/) {}
  // What is wrong with a training-model name a trace gives (an unknown one, with the valid
  // names), for the check of every job before the run; nullopt when the model takes it, or when
  // it knows no training models (the name has no effect).
  virtual std::optional<std::string> training_model_error(std::string_view /*name*/) const { return std::nullopt; }

  // Models whose speeds depend on other running jobs (shared links) return true and are
  // told of every run that starts or ends; after each instant's changes the executor asks
  // which runs' speeds changed and moves their completions. Run ids are the executor's.
  virtual bool shares_links() const { return false; }
  virtual void run_started(std::uint64_t /*run*/, const workload::JobSpec& /*job*/,
                           const cluster::Placement& /*placement*/, const cluster::Topology& /*topo*/) {}
  virtual void run_ended(std::uint64_t /*run*/) {}
  // Appends (run, new speed) for every run whose speed changed since the last call.
  virtual void take_speed_changes(std::vector<std::pair<std::uint64_t, double>>& /*out*/) {}
  // The job's checkpoint costs as the model catalog gives them (size over storage
  // bandwidth); false when the model has none for this job.
  // True when speed() follows the placement's GPU count for a job whose trace duration is its
  // work on one GPU (the placement model with `reference: one_gpu`): only then can an elastic
  // job run at a size other than its traced one.
  virtual bool sizes_elastic_jobs() const { return false; }
  // How much faster a batch-adapting policy makes the job progress on this placement than
  // speed() says, at `progress` (0..1) of its work (perf/goodput.h): the goodput at the batch of
  // highest goodput (initial-batch samples per second) over the throughput at the training
  // model's own batch per GPU (the one speed() is measured at) times the efficiency of the
  // reference run's batch (the work counts the reference run's samples). 1 for a job whose
  // training model has no statistical efficiency, and for models that know no training model.
  // The `pollux` policy plans with it and the simulator charges it (docs/elastic.md).
  virtual double goodput_ratio(const workload::JobSpec& /*job*/, const cluster::Placement& /*placement*/,
                               const cluster::Topology& /*topo*/, double /*progress*/) const {
    return 1.0;
  }
  // goodput_ratio at progress k / steps for every k from `first` to steps - 1, into out[k] (out
  // resized to `steps`): the placement's figures are worked out once, not once a step.
  virtual void goodput_ratios(const workload::JobSpec& job, const cluster::Placement& placement,
                              const cluster::Topology& topo, int first, int steps, std::vector<double>& out) const {
    out.assign(static_cast<std::size_t>(steps), 1.0);
    for (int k = first; k < steps; ++k)
      out[static_cast<std::size_t>(k)] = goodput_ratio(job, placement, topo, static_cast<double>(k) / steps);
  }
  virtual bool checkpoint_cost(const workload::JobSpec& /*job*/, workload::CheckpointCost& /*out*/) const {
    return false;
  }
};

// `trace`: every job runs exactly as long as its trace says, wherever it is placed.
std::unique_ptr<PerfModel> make_trace_rate_model();

}  // namespace schedlab::perf
