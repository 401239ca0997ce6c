// One pass over a scenario's workload before anything runs: each job is put to every check the
// run would put it to on its way in (its GPU-model request names catalog models, its pool
// resolves; the readers' own checks come with the stream), and the offered load is added up.
// `run` makes it first, so that bad input stops the run before it prints anything, and says
// the load at its start; `validate` makes the same pass, so that it accepts no trace that `run`
// refuses. With `fits`, it also counts the jobs the scheduler would drop as never fitting.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cluster/topology.h"
#include "config/scenario.h"
#include "metrics/offered_load.h"

namespace schedlab::run {

struct WorkloadScan {
  std::uint64_t jobs = 0;
  metrics::OfferedLoad load;
  // With `fits`: jobs that can never fit, per reason, most frequent first.
  std::vector<std::pair<std::string, std::uint64_t>> never_fit;
};

// Throws InputError as `run` would, at the job's line.
WorkloadScan scan_workload(const config::Scenario& sc, const cluster::Topology& topo, bool fits);

// The name the run gives the workload in errors: the trace, "generator", or the scenario.
std::string workload_name(const config::Scenario& sc);

// "12 job(s) <verb>: 10 x <reason>; 2 x <reason>" (at most three reasons, the most frequent
// first, then how many more); "" for none.
std::string dropped_text(const std::vector<std::pair<std::string, std::uint64_t>>& by_reason, const char* verb);

}  // namespace schedlab::run
