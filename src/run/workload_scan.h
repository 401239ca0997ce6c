// One pass over a scenario's workload before anything runs: each job is put to every check the
// run would put it to on its way in (its GPU-model request names catalog models, its pool
// resolves; the readers' own checks come with the stream), and the offered load is added up.
// `run` makes it first, so that bad input stops the run before it prints anything, and says
// the load at its start; `validate` makes the same pass, so that it accepts no trace that `run`
// refuses. With `fits`, it also counts the jobs the scheduler would drop as never fitting.
// With `keep_jobs`, it keeps the jobs it read for the run to replay (workload/recorded_source.h)
// instead of reading the trace again: the pass then costs the run little more than the memory
// of the jobs, freed as the run takes them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cluster/topology.h"
#include "config/scenario.h"
#include "metrics/offered_load.h"
#include "perf/perf_model.h"
#include "workload/recorded_source.h"

namespace schedlab::run {

struct WorkloadScan {
  std::uint64_t jobs = 0;
  metrics::OfferedLoad load;
  // With `fits`: jobs that can never fit, per reason, most frequent first.
  std::vector<std::pair<std::string, std::uint64_t>> never_fit;
  // With `keep_jobs`: the jobs read, to be replayed (RecordedSource::replay_to first).
  std::unique_ptr<workload::RecordedSource> kept;
};

struct ScanOptions {
  bool fits = false;
  bool keep_jobs = false;
  // The perf model reads a GPU job's duration as its work on ONE GPU (`perf.reference: one-gpu`,
  // PerfModel::sizes_elastic_jobs): the offered load counts that work, not duration x GPUs.
  bool one_gpu_work = false;
  // The run's perf model: a job naming a training model it does not know is refused at the
  // job's line (PerfModel::training_model_error). Null: names are not checked.
  const perf::PerfModel* perf = nullptr;
};

// Throws InputError as `run` would, at the job's line.
WorkloadScan scan_workload(const config::Scenario& sc, const cluster::Topology& topo, ScanOptions options);

// The name the run gives the workload in errors: the trace, "generator", or the scenario.
std::string workload_name(const config::Scenario& sc);

// "12 job(s) <verb>: 10 x <reason>; 2 x <reason>" (at most three reasons, the most frequent
// first, then how many more); "" for none.
std::string dropped_text(const std::vector<std::pair<std::string, std::uint64_t>>& by_reason, const char* verb);

}  // namespace schedlab::run
