// Scenario options and labels for the CLI.
#include "cli/common.h"
#include "cli/number_option.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "util/suggest.h"

namespace schedlab::cli {

void add_scenario_options(CLI::App* cmd, ScenarioOptions& opts, bool required) {
  cmd->add_option("scenario", opts.scenario, "Scenario file (scenarios/*.yaml)")->required(required);
  cmd->add_option("--set", opts.sets, "Override a scenario key, e.g. --set scheduler.placement=rack-pack");
  add_number_option(cmd, "--seed", opts.seed, "Replace the scenario's seed");
  cmd->add_option("--scheduler-cmd", opts.scheduler_cmd,
                  "An external policy decides (docs/external-scheduler.md): its command line, as "
                  "--set scheduler.external.command=CMD");
}

config::Scenario load(const ScenarioOptions& opts, const config::Variant* variant) {
  std::vector<std::string> sets;
  if (variant) sets = variant->sets;
  sets.insert(sets.end(), opts.sets.begin(), opts.sets.end());
  // A JSON string is a YAML double-quoted scalar: the command arrives whatever it holds.
  if (!opts.scheduler_cmd.empty())
    sets.push_back("scheduler.external.command=" + nlohmann::json(opts.scheduler_cmd).dump());
  return config::load_scenario(opts.scenario, sets, opts.seed, variant ? variant->index : std::nullopt);
}

void add_format_option(CLI::App* cmd, std::string& format) {
  cmd->add_option("--format", format, "What standard output holds: text (for people) or json (the summary, for "
                                      "scripts; the lines for people go to standard error)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
}

std::FILE* human_stream(const std::string& format) { return format == "json" ? stderr : stdout; }

namespace {
std::string progress_share(const metrics::Progress& p) {
  return p.share >= 0 ? fmt::format("{:.0f}% done, ", 100 * p.share) : std::string();
}
// Time left at the pace so far; said only once the pace means something.
std::string progress_eta(const metrics::Progress& p) {
  if (p.share < 0.01 || p.share >= 1 || p.wall_s < 1) return {};
  const double left = p.wall_s * (1 - p.share) / p.share;
  return left < 90 ? fmt::format(", about {:.0f} s left", left) : fmt::format(", about {:.0f} min left", left / 60);
}
}  // namespace

std::function<void(const metrics::Progress&)> ProgressBoard::reporter(std::size_t i) {
  return [this, i](const metrics::Progress& p) { update(i, p); };
}

void ProgressBoard::update(std::size_t i, const metrics::Progress& p) {
  std::lock_guard lock(mutex_);
  runs_[i] = p;
  std::size_t done = 0;
  metrics::Progress all;
  double share = 0;  // in runs: a run not yet started counts 0
  bool known = true;
  for (const auto& r : runs_) {
    done += r.done;
    all.jobs_ended += r.jobs_ended;
    all.jobs_seen += r.jobs_seen;
    if (r.done) share += 1;
    else if (r.share >= 0) share += r.share;
    else if (r.jobs_seen > 0) known = false;  // started, and its source cannot tell
  }
  all.share = known ? share / static_cast<double>(runs_.size()) : -1;
  all.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (done == runs_.size()) {
    if (shown_) fmt::print(stderr, "\r\033[K");
    return;
  }
  if (p.done) return;  // a run's end is not worth a line by itself
  shown_ = true;
  fmt::print(stderr, "\r\033[K{} of {} variants done; {}{} jobs ended, {:.0f} jobs/s{}", done, runs_.size(),
             progress_share(all), all.jobs_ended, all.wall_s > 0 ? static_cast<double>(all.jobs_ended) / all.wall_s : 0.0,
             progress_eta(all));
}

void progress_line(const metrics::Progress& p) {
  if (p.done) {
    if (p.wall_s >= 0.5) fmt::print(stderr, "\r\033[K");  // a line was shown: clear it
    return;
  }
  fmt::print(stderr, "\r\033[K{}trace time {:.1f} h, {} of {} jobs ended, {:.0f} jobs/s{}", progress_share(p),
             engine::to_seconds(p.now) / 3600, p.jobs_ended, p.jobs_seen,
             p.wall_s > 0 ? static_cast<double>(p.jobs_ended) / p.wall_s : 0.0, progress_eta(p));
}

std::string policy_label(const sched::SchedulerConfig& c) {
  if (!c.external.command.empty()) return "external '" + c.external.command + "'";
  if (!c.policy.empty()) return c.policy + " + " + c.placement;
  std::string s = c.queue + " + " + util::join(c.admission, "/") + " + " + c.placement;
  if (!c.filters.empty()) s += " [" + util::join(c.filters, ", ") + "]";
  if (c.backfill != "none") s += " backfill=" + c.backfill;
  if (c.preemption != "none") s += " preempt=" + c.preemption;
  return s;
}

}  // namespace schedlab::cli
