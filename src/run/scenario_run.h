// Runs a loaded scenario end to end: builds the cluster, workload, scheduler and perf
// model, simulates, and writes the results folder (jobs.csv, timeline.csv, summary.json,
// run.yaml, and with pools pools-timeline.csv) atomically.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "config/scenario.h"
#include "metrics/collector.h"
#include "metrics/progress_observer.h"
#include "metrics/summary.h"
#include "sim/run_hooks.h"
#include "sim/simulation.h"
#include "util/notice.h"

namespace schedlab::run {

struct RunOutcome {
  metrics::Summary summary;
  sim::SimulationStats stats;
  std::string out_dir;
  std::string pools_report;  // `run --pools-report` (scenario.pools.report_at); "" otherwise
  std::string story;         // `run --explain JOB`; "" otherwise
};

// Simulates `scenario`; writes results to `out_dir` unless it is empty (see StagingDir:
// only a results folder, or with `force` an empty folder, is replaced). With `events_file`,
// also writes the run's event log there (metrics/event_log.h), atomically: beside the
// results as a file of its own, or, named directly inside `out_dir`, as part of them.
// `notices`: the command's (util/notice.h), given to the trace reader, the perf model, the
// collector and the simulation.
RunOutcome run_scenario(const config::Scenario& scenario, util::Notices& notices, const std::string& out_dir,
                        bool force = false, const std::string& events_file = {}, const sim::RunHooks& hooks = {});

// Opens the scenario's workload (trace file or generator); a trace reader says its notices to `notices`.
std::unique_ptr<workload::JobSource> open_workload(const config::Scenario& scenario, util::Notices& notices);

}  // namespace schedlab::run
