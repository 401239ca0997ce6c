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
#include "sim/simulation.h"

namespace schedlab::sim {

struct RunOutcome {
  metrics::Summary summary;
  SimulationStats stats;
  std::string out_dir;
  std::string pools_report;  // `run --pools-report` (scenario.pools.report_at); "" otherwise
  std::string story;         // `run --explain JOB`; "" otherwise
};

// What turns `run_scenario` into an emulation (emu/emulation.h): `drive` is called with the
// built cluster and perf model before the run and returns the clock and executor (the
// scenario's failure model is then not used: failures are real); `finish` is called after the
// run with its records, before the results folder is committed, and may add files to it
// (`path_of(name)`; empty when there is no results folder).
struct RunHooks {
  using PathOf = std::function<std::string(const std::string&)>;
  std::function<Driver(const cluster::Topology& topo, perf::PerfModel& perf)> drive;
  std::function<void(const PathOf& path_of, const metrics::Collector& collector, const metrics::Summary& summary)>
      finish;
  // A long run's progress, for a terminal (metrics/progress_observer.h); none when empty.
  std::function<void(const metrics::Progress&)> progress;
  // `run --explain JOB`: the job whose story RunOutcome::story tells (sim/job_story.h).
  std::optional<workload::JobId> explain;
};

// Simulates `scenario`; writes results to `out_dir` unless it is empty (see StagingDir:
// only a results folder, or with `force` an empty folder, is replaced). With `events_file`,
// also writes the run's event log there (metrics/event_log.h), atomically: beside the
// results as a file of its own, or, named directly inside `out_dir`, as part of them.
RunOutcome run_scenario(const config::Scenario& scenario, const std::string& out_dir, bool force = false,
                        const std::string& events_file = {}, const RunHooks& hooks = {});

// Opens the scenario's workload (trace file or generator).
std::unique_ptr<workload::JobSource> open_workload(const config::Scenario& scenario);

}  // namespace schedlab::sim
