// Options shared by the commands that take a scenario (run, compare, validate).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "config/scenario.h"

namespace schedlab::cli {

struct ScenarioOptions {
  std::string scenario;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
};

// `required`: false where another option may stand in for the scenario (emulate --resume).
void add_scenario_options(CLI::App* cmd, ScenarioOptions& opts, bool required = true);
config::Scenario load(const ScenarioOptions& opts, const std::vector<std::string>& extra_sets = {});
// "fifo + gang + best-fit" style label of a scheduler.
std::string policy_label(const sched::SchedulerConfig& c);

}  // namespace schedlab::cli
