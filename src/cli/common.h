// Options shared by the commands that take a scenario (run, compare, validate).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "config/scenario.h"
#include "metrics/progress_observer.h"

#include <chrono>
#include <mutex>
#include <vector>

namespace schedlab::cli {

struct ScenarioOptions {
  std::string scenario;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  std::string scheduler_cmd;  // --scheduler-cmd: scheduler.external.command
};

// `required`: false where another option may stand in for the scenario (emulate --resume).
void add_scenario_options(CLI::App* cmd, ScenarioOptions& opts, bool required = true);
// The scenario as the options say; with `variant`, that variant of it (its sets first, then --set).
config::Scenario load(const ScenarioOptions& opts, const config::Variant* variant = nullptr);
// `--format text|json`: what a command prints on standard output. With json, standard output
// holds one JSON document for scripts, and the lines for people go to standard error.
void add_format_option(CLI::App* cmd, std::string& format);
// Where the lines for people go under `format`.
std::FILE* human_stream(const std::string& format);

// The progress line a long run keeps rewriting on a terminal's standard error (cleared when
// the run ends): share of the workload handed out, trace time reached, jobs ended of those
// seen, jobs ended per second, and the time left at that pace.
void progress_line(const metrics::Progress& p);

// One progress line for runs side by side (compare): variants done, the share of all their
// work done (a variant not yet started counts nothing), jobs ended in all, and the time
// left at that pace. Thread-safe.
class ProgressBoard {
 public:
  explicit ProgressBoard(std::size_t runs) : runs_(runs), start_(std::chrono::steady_clock::now()) {}
  // The callback for run `i`'s RunHooks::progress.
  std::function<void(const metrics::Progress&)> reporter(std::size_t i);

 private:
  void update(std::size_t i, const metrics::Progress& p);
  std::mutex mutex_;
  std::vector<metrics::Progress> runs_;
  std::chrono::steady_clock::time_point start_;
  bool shown_ = false;
};

// "fifo + gang + best-fit" style label of a scheduler.
std::string policy_label(const sched::SchedulerConfig& c);

}  // namespace schedlab::cli
