// `schedlab run` and `schedlab validate`.
#include <fmt/format.h>

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <iostream>

#include "cli/commands.h"
#include "cli/number_option.h"
#include "cli/common.h"
#include "metrics/writers.h"
#include "perf/perf_registry.h"
#include "run/packing_run.h"
#include "run/scenario_run.h"
#include "run/workload_scan.h"
#include "sched/part_effects.h"
#include "util/checked.h"
#include "util/error.h"
#include "util/notice.h"
#include "util/staging_dir.h"
#include "util/text.h"

namespace schedlab::cli {

namespace {
// `run` of a scenario in the packing mode (sim/packing_run.h).
void run_packing_command(const config::Scenario& scenario, util::Notices& notices, const std::string& dir, bool force,
                         const std::string& format, bool replay_options) {
  if (replay_options)
    throw util::InputError(
        scenario.file, scenario.workload.mode_line, "workload.mode",
        "packing: --explain, --events and --pools-report follow a replay in time; this run has none");
  auto t0 = std::chrono::steady_clock::now();
  auto outcome = run::run_packing(scenario, notices, dir, force);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::FILE* human = human_stream(format);
  fmt::print(human, "scenario {}: packing with {} on {} ({} GPUs), seed {}\n", util::printable(scenario.name),
             policy_label(scenario.scheduler), util::printable(scenario.cluster.name), outcome.total_gpus,
             scenario.seed);
  if (format == "json") {
    run::write_packing_summary_json(std::cout, outcome, scenario.name);
  } else {
    fmt::print("{}", run::format_packing_table(outcome));
  }
  fmt::print(human, "results: {}/\n", dir);
  fmt::print(human, "run: {} pods in {:.2f} s wall\n", outcome.pods_arrived, wall);
}

// What `run` would find wrong with the scenario's workload and perf model, found without
// simulating: the trace read to its end (every row, cron and service expansions, the
// generator's counts) through the run's own checks of each job (run/workload_scan.h), the perf
// model built. Says what `run` would say at its start (the offered load, parts without effect)
// and how many jobs it would drop. Returns the jobs the workload holds.
std::uint64_t validate_workload(const config::Scenario& scenario, util::Notices& notices) {
  cluster::Topology topo(scenario.cluster, scenario.catalog);
  const auto perf = perf::make_perf_model(scenario.perf.model, scenario.perf.args, scenario.file, topo, scenario.seed,
                                          scenario.perf.model_line, &notices);
  if (scenario.workload.packing_mode) {
    auto source = run::open_workload(scenario, notices);
    workload::JobSpec job;
    std::uint64_t jobs = 0;
    while (source->next(job)) ++jobs;
    return jobs;
  }
  const auto scan = run::scan_workload(scenario, topo,
                                       {.fits = true, .one_gpu_work = perf->sizes_elastic_jobs(), .perf = perf.get()});
  notices.say(metrics::offered_load_text(scan.load));
  if (auto over = metrics::overload_text(scan.load)) notices.say(*over);
  for (const auto& why : sched::parts_without_effect(scenario.scheduler, topo, {scenario.lifecycle.failures.any()}))
    notices.say(why);
  if (auto text = run::dropped_text(scan.never_fit, "would be dropped at submit"); !text.empty()) notices.say(text);
  return scan.jobs;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("run", "Simulate a scenario and write results/<name>/ (jobs.csv, timeline.csv, "
                                        "summary.json, run.yaml)");
  auto opts = std::make_shared<ScenarioOptions>();
  auto out = std::make_shared<std::string>();
  auto force = std::make_shared<bool>(false);
  auto events = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("text");
  auto quiet = std::make_shared<bool>(false);
  add_scenario_options(cmd, *opts);
  add_format_option(cmd, *format);
  cmd->add_flag("-q,--quiet", *quiet, "No progress line on the terminal, no notices");
  auto explain = std::make_shared<std::uint32_t>(0);
  auto* explain_opt = add_number_option(cmd, "--explain", *explain, "Tell the story of one job (its id in jobs.csv): "
                                                             "submitted, why it waited, where it started, why it "
                                                             "stopped, how it ended")
                          ->type_name("JOB");
  cmd->add_option("-o,--out", *out, "Results folder (default: results/<scenario name>); replaces only a schedlab "
                                 "results folder");
  cmd->add_flag("--force", *force, "Also replace an empty folder that is not a results folder");
  cmd->add_option("--events", *events, "Also write the run's event log (CSV: every start, stop and why, restart, "
                                       "finish, fail) to FILE")
      ->type_name("FILE");
  auto pools_report_s = std::make_shared<double>(0);
  auto* pools_report = add_number_option(cmd, "--pools-report", *pools_report_s,
                                       "Print the pools (demand, reservation, entitlement, allocation) as they are "
                                       "at this trace time")
                           ->type_name("SECONDS");
  auto skipped = std::make_shared<std::string>();
  cmd->add_option("--skipped", *skipped, "Write the line and reason of every trace row left out to FILE (CSV)")
      ->type_name("FILE");
  cmd->callback([opts, out, force, events, pools_report, pools_report_s, format, quiet, explain, explain_opt,
                 skipped, &exit_code] {
    auto scenario = load(*opts);
    scenario.workload.options.skipped_file = *skipped;
    if (pools_report->count() > 0) {
      if (!scenario.pools.enabled)
        throw util::InputError(fmt::format("--pools-report: scenario {} has no pools: section", scenario.file));
      scenario.pools.report_at =
          util::checked_duration_seconds(*pools_report_s, util::FieldContext{"", 0, "--pools-report"});
    }
    std::string dir = out->empty() ? "results/" + scenario.name : *out;
    // Refused now rather than after a long simulation.
    util::check_results_target(dir, *force);
    util::Notices notices(*quiet);
    if (scenario.workload.packing_mode) {
      run_packing_command(scenario, notices, dir, *force, *format, explain_opt->count() > 0 || pools_report->count() > 0 ||
                                                              !events->empty());
      exit_code = 0;
      return;
    }
    auto t0 = std::chrono::steady_clock::now();
    sim::RunHooks hooks;
    if (explain_opt->count() > 0) hooks.explain = *explain;
    if (!*quiet && ::isatty(STDERR_FILENO)) hooks.progress = progress_line;
    auto outcome = run::run_scenario(scenario, notices, dir, *force, *events, hooks);
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::FILE* human = human_stream(*format);
    // Names from the scenario are printed as util/text.h makes them: an ESC must not drive the terminal.
    fmt::print(human, "scenario {}: {} on {} ({} GPUs), seed {}\n", util::printable(scenario.name),
               policy_label(scenario.scheduler), util::printable(scenario.cluster.name), outcome.summary.total_gpus,
               scenario.seed);
    if (*format == "json")
      metrics::write_summary_json(std::cout, outcome.summary, scenario.name);
    else
      fmt::print("{}", metrics::format_summary_table(outcome.summary));
    if (pools_report->count() > 0)
      fmt::print(human, "{}", outcome.pools_report.empty() ? "pools: the run ended before --pools-report's time\n"
                                                           : outcome.pools_report);
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    fmt::print(human, "results: {}/\n", dir);
    if (!events->empty()) fmt::print(human, "events: {}\n", *events);
    if (!outcome.story.empty()) fmt::print(human, "{}", outcome.story);
    // Wall time and memory go to the terminal only: results files stay byte-identical.
    fmt::print(human, "run: {} events, {} instants in {:.2f} s wall ({:.0f} events/s), peak RSS {:.0f} MiB\n",
               outcome.stats.events, outcome.stats.instants, wall, wall > 0 ? outcome.stats.events / wall : 0.0,
               usage.ru_maxrss / 1024.0);
    exit_code = 0;
  });
}

void add_validate_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("validate", "Check a scenario (and the files it names) without running it");
  auto opts = std::make_shared<ScenarioOptions>();
  add_scenario_options(cmd, *opts);
  cmd->callback([opts, &exit_code] {
    auto scenario = load(*opts);
    util::Notices notices;  // one for the scenario and its variants: each notice is said once
    const std::uint64_t jobs = validate_workload(scenario, notices);
    const auto& w = scenario.workload;
    std::string workload = w.generate ? "generated" : w.trace.empty() ? "" : w.trace;
    if (!w.long_running.empty())
      workload += fmt::format("{}{} services, {} cron entries", workload.empty() ? "" : " + ",
                              w.long_running.services.size(), w.long_running.cron.size());
    workload += fmt::format(": {} {}", jobs, w.packing_mode ? "pods" : "jobs");
    fmt::print("{}: ok ({}; cluster {}; workload {})\n", util::printable(opts->scenario),
               policy_label(scenario.scheduler), util::printable(scenario.cluster.name), util::printable(workload));
    // Each variant is checked as compare would run it; its own errors name its line.
    for (const auto& v : scenario.variants) {
      auto variant = load(*opts, &v);
      const std::uint64_t n = validate_workload(variant, notices);
      fmt::print("  variant {}: ok ({}; {} {})\n", v.name, policy_label(variant.scheduler), n,
                 variant.workload.packing_mode ? "pods" : "jobs");
    }
    exit_code = 0;
  });
}

}  // namespace schedlab::cli
