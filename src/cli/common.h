// Options shared by the commands that take a scenario (run, compare, validate).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "config/scenario.h"
#include "metrics/progress_observer.h"

namespace schedlab::cli {

struct ScenarioOptions {
  std::string scenario;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
};

// `required`: false where another option may stand in for the scenario (emulate --resume).
void add_scenario_options(CLI::App* cmd, ScenarioOptions& opts, bool required = true);
config::Scenario load(const ScenarioOptions& opts, const std::vector<std::string>& extra_sets = {});
// `--format text|json`: what a command prints on standard output. With json, standard output
// holds one JSON document for scripts, and the lines for people go to standard error.
void add_format_option(CLI::App* cmd, std::string& format);
// Where the lines for people go under `format`.
std::FILE* human_stream(const std::string& format);

// The progress line a long run keeps rewriting on a terminal's standard error (cleared when
// the run ends): trace time reached, jobs ended of those seen, jobs ended per second.
void progress_line(const metrics::Progress& p);

// "fifo + gang + best-fit" style label of a scheduler.
std::string policy_label(const sched::SchedulerConfig& c);

}  // namespace schedlab::cli
