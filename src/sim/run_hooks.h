// The hooks through which a run of a scenario (run/scenario_run.h) becomes something else than
// a plain simulation: an emulation's clock and executor (emu/controller/emulation.h), a look at the
// records before the results folder is committed, a terminal's progress line, one job's story.
// Apart from run_scenario so that emu/, below run/, can fill them in.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "metrics/collector.h"
#include "metrics/progress_observer.h"
#include "metrics/summary.h"
#include "sim/simulation.h"

namespace schedlab::sim {

// What turns `run_scenario` into an emulation (emu/controller/emulation.h): `drive` is called with the
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

}  // namespace schedlab::sim
