// Scenario options and labels for the CLI.
#include "cli/common.h"

#include <fmt/format.h>

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

void add_format_option(CLI::App* cmd, std::string& format) {
  cmd->add_option("--format", format, "What standard output holds: text (for people) or json (the summary, for "
                                      "scripts; the lines for people go to standard error)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
}

std::FILE* human_stream(const std::string& format) { return format == "json" ? stderr : stdout; }

void progress_line(const metrics::Progress& p) {
  if (p.done) {
    if (p.wall_s >= 0.5) fmt::print(stderr, "\r\033[K");  // a line was shown: clear it
    return;
  }
  fmt::print(stderr, "\r\033[Ktrace time {:.1f} h, {} of {} jobs ended, {:.0f} jobs/s", engine::to_seconds(p.now) / 3600,
             p.jobs_ended, p.jobs_seen, p.wall_s > 0 ? static_cast<double>(p.jobs_ended) / p.wall_s : 0.0);
}

std::string policy_label(const sched::SchedulerConfig& c) {
  std::string s = c.queue + " + " + join(c.admission, "/") + " + " + c.placement;
  if (!c.filters.empty()) s += " [" + join(c.filters, ", ") + "]";
  if (c.backfill != "none") s += " backfill=" + c.backfill;
  if (c.preemption != "none") s += " preempt=" + c.preemption;
  return s;
}

}  // namespace schedlab::cli
