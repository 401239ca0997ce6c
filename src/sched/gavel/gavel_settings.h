// The settings of Gavel's policies as scheduler parts (`scheduler.policy:
// gavel-max-min-fairness` or `gavel-finish-time-fairness`, arguments under
// `scheduler.args.<policy>`): which program decides the allocation and how long a round is.
// Read in one place, so that `validate` and the run refuse the same input.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/time.h"
#include "sched/scheduler_config.h"

namespace schedlab::sched::gavel {

enum class GavelPolicy { max_min_fairness, finish_time_fairness };

struct GavelSettings {
  GavelPolicy policy = GavelPolicy::max_min_fairness;
  engine::Time round = engine::from_seconds(360);  // Gavel's default round: 6 minutes
  bool fill_leftover = false;                      // the programs' second stage (max_min_fairness.h)
};

// The names `scheduler.policy` accepts.
const std::vector<std::string>& gavel_policy_names();

// Why a scenario cannot run `config.policy` (none: it can): an unknown name, an external
// policy beside it, pools or the packing mode, or a perf model without a throughput matrix
// (`trace`, `none`: every job at its traced speed on every GPU type).
std::optional<std::string> policy_conflict(const SchedulerConfig& config, const std::string& perf_model, bool pools,
                                           bool packing);

// Reads `config.args[config.policy]` (round_s > 0, fill_leftover); throws util::InputError at
// the argument's line (`scheduler.args.<policy>.<arg>`) for an unknown name or a bad value.
// config.policy must be one of gavel_policy_names().
GavelSettings gavel_settings(const SchedulerConfig& config);

}  // namespace schedlab::sched::gavel
