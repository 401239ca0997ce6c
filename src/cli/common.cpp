// Scenario options and labels for the CLI.
#include "cli/common.h"

#include "util/suggest.h"

namespace schedlab::cli {

void add_scenario_options(CLI::App* cmd, ScenarioOptions& opts, bool required) {
  cmd->add_option("scenario", opts.scenario, "Scenario file (scenarios/*.yaml)")->required(required);
  cmd->add_option("--set", opts.sets, "Override a scenario key, e.g. --set scheduler.placement=rack-pack");
  cmd->add_option("--seed", opts.seed, "Replace the scenario's seed");
}

config::Scenario load(const ScenarioOptions& opts, const std::vector<std::string>& extra_sets) {
  std::vector<std::string> sets = extra_sets;
  sets.insert(sets.end(), opts.sets.begin(), opts.sets.end());
  return config::load_scenario(opts.scenario, sets, opts.seed);
}

std::string policy_label(const sched::SchedulerConfig& c) {
  std::string s = c.queue + " + " + join(c.admission, "/") + " + " + c.placement;
  if (!c.filters.empty()) s += " [" + join(c.filters, ", ") + "]";
  if (c.backfill != "none") s += " backfill=" + c.backfill;
  if (c.preemption != "none") s += " preempt=" + c.preemption;
  return s;
}

}  // namespace schedlab::cli
