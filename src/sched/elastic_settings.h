// The settings of the resizing policies (`scheduler.policy: optimus | pollux | afs | sia`, arguments
// under `scheduler.args.<policy>`), read in one place so that `validate` and the run refuse the
// same input (docs/elastic.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sched/scheduler_config.h"

namespace schedlab::sched {

struct PolluxSettings {
  double p = -1;                  // the fairness exponent of the speedups' power mean (Pollux's default)
  double restart_penalty_s = 30;  // the artifact's `delay`: a resize's cost in its restart discount
  // The artifact's exploration: a job grows to at most `growth` x the largest count it has run
  // at (a job that never ran: 1 GPU). 0: off (a job may take its whole range at once).
  double growth = 0;
  // Also re-plan every interval_s seconds while jobs are active (the artifact: 60). 0: only at
  // events (arrivals, ends, requeues, freed GPUs).
  double interval_s = 0;
};

struct OptimusSettings {
  // The churn guard: a running job grows only where its remaining time drops by more than this
  // (seconds; the restart the growth costs, say). 0: Optimus' plain greedy.
  double min_gain_s = 0;
};

// Sia (SOSP'23; sia_plan.h), its defaults the artifact's (sia-simulator/simulator_config.py).
struct SiaSettings {
  double p = -0.5;                // the fairness power of the normalised goodputs (not 0)
  double lambda_n = 1.1;          // a job's worth of being scheduled at all (> 1)
  double lambda_a = 0.01;         // a running job's worth of keeping its configuration
  double restart_penalty_s = 30;  // R of the restart factor, and how long a started job is kept
  std::uint64_t mip_nodes = 10;   // branch-and-bound subproblems a plan may take (0: rounding only)
};

// The names `scheduler.policy` accepts for a resizing policy.
const std::vector<std::string>& elastic_policy_names();
bool is_elastic_policy(const std::string& policy);

// Reads `config.args[config.policy]` for a resizing policy (pollux: p in [-10, 1],
// restart_penalty_s >= 0, growth 0 or in [1, 1024], interval_s >= 0; optimus: min_gain_s >= 0;
// sia: p in [-10, 1] but not 0, lambda_n in (1, 100], lambda_a in [0, 10], restart_penalty_s >= 0,
// mip_nodes in [0, 1000000]; afs takes none); throws util::InputError at the argument's line
// (`scheduler.args.<policy>.<arg>`) for an unknown name or a bad value.
void check_elastic_args(const SchedulerConfig& config);
PolluxSettings pollux_settings(const SchedulerConfig& config);
OptimusSettings optimus_settings(const SchedulerConfig& config);
SiaSettings sia_settings(const SchedulerConfig& config);

}  // namespace schedlab::sched
