// `schedlab emulate`: the scenario's scheduler in scaled wall-clock time, with real processes.
#include <fmt/format.h>

#include <filesystem>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/number_option.h"
#include "emu/controller/emulation.h"
#include "emu/controller/journal.h"
#include "metrics/writers.h"
#include "run/scenario_run.h"
#include "util/staging_dir.h"

namespace schedlab::cli {

namespace {
std::string absolute(const std::string& path) {
  return path.empty() ? path : std::filesystem::absolute(path).lexically_normal().string();
}

// The options of the emulation that wrote `journal`, as its header recorded them.
struct Resumed {
  ScenarioOptions scenario;
  emu::EmulationOptions emulation;
  std::string out;
  bool force = false;
  bool temporary_work_dir = false;
};

Resumed resumed_options(const emu::Journal& journal, const std::string& path) {
  Resumed r;
  try {
    const emu::FieldReader f(journal.options, "emulate");
    r.scenario.scenario = f.name("scenario");
    r.scenario.sets = f.strings("sets");
    if (f.has("seed")) r.scenario.seed = f.uint("seed");
    r.out = f.name("out");
    r.force = f.boolean("force");
    auto& e = r.emulation;
    e.speedup = f.number("speedup", 1e-9, 1e6);
    e.listen = f.name("listen");
    e.token_file = f.string("token_file");
    e.external_agents = f.boolean("external_agents");
    e.agents_timeout = std::chrono::milliseconds(f.uint("agents_timeout_ms", 86400000));
    e.heartbeat_timeout_ms = static_cast<std::uint32_t>(f.uint("heartbeat_timeout_ms", 3600000));
    e.work_dir = f.name("work_dir");
    e.keep_work = f.boolean("keep_work");
    r.temporary_work_dir = f.boolean("temporary_work_dir");
    if (f.has("gpus")) e.gpus = emu::parse_gpu_list(f.string("gpus"), "gpus");
    if (f.has("gpu_profile")) e.gpu_profile = f.string("gpu_profile");
    e.journal_options = journal.options;
  } catch (const emu::ProtocolException& ex) {
    throw util::InputError(path, 1, "", ex.error.message);
  }
  return r;
}
}  // namespace

void add_emulate_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "emulate", "Run a scenario's scheduler in wall-clock time (scaled by --speedup) against node agents that "
                 "launch real processes; results as `run` writes them, plus emulation.json");
  auto opts = std::make_shared<ScenarioOptions>();
  auto eo = std::make_shared<emu::EmulationOptions>();
  auto out = std::make_shared<std::string>();
  auto force = std::make_shared<bool>(false);
  auto agents_timeout_s = std::make_shared<double>(30);
  auto resume = std::make_shared<std::string>();
  auto gpus = std::make_shared<std::string>();
  add_scenario_options(cmd, *opts, false);
  add_number_option(cmd, "--speedup", eo->speedup, "Trace seconds per wall second");
  cmd->add_option("-o,--out", *out, "Results folder (default: results/<scenario name>-emulated)");
  cmd->add_flag("--force", *force, "Also replace an empty folder that is not a results folder");
  cmd->add_option("--listen", eo->listen, "The controller's ADDRESS:PORT (port 0: any free one); an address other "
                                          "than loopback needs --token-file")
      ->default_val("127.0.0.1:0");
  cmd->add_option("--token-file", eo->token_file, "A file whose first line is the token agents and API calls must "
                                                  "carry (Authorization: Bearer TOKEN)");
  cmd->add_flag("--external-agents", eo->external_agents,
                "Start no agents: wait for `schedlab agent` processes to register (other machines, srun)");
  add_number_option(cmd, "--agents-timeout", *agents_timeout_s, "Seconds to wait for every host's agent", {0.0, 86400.0});
  add_number_option(cmd, "--heartbeat-timeout-ms", eo->heartbeat_timeout_ms,
                    "An agent silent this long (wall ms) is lost: its host's GPUs go down and its jobs fail",
                    {200, 3600000});
  cmd->add_option("--work-dir", eo->work_dir, "Folder for checkpoints and agents' logs (default: a fresh one under "
                                              "TMPDIR, removed after the run)");
  cmd->add_flag("--keep-work", eo->keep_work, "Keep the default work folder after the run");
  cmd->add_option("--gpus", *gpus,
                  "Run every task on this machine's real GPUs, e.g. 0,1,2,3: one per GPU of the cluster, dealt to its "
                  "hosts in order; each task is `schedlab worker --gpu` (docs/calibration.md, the GPU check)");
  cmd->add_option("--gpu-profile", eo->gpu_profile,
                  "With --gpus: the calibration profile whose bf16 TFLOP/s sizes each step's GEMM (default: the "
                  "datasheet's)");
  auto* resume_opt = cmd->add_option(
      "--resume", *resume,
      "Continue the emulation whose controller was killed, from WORK_DIR/journal.jsonl (with that emulation's "
      "options: give nothing else)");
  for (auto* o : cmd->get_options())
    if (o != resume_opt && o->get_name() != "--help") resume_opt->excludes(o);
  cmd->callback([opts, eo, out, force, agents_timeout_s, resume, gpus, &exit_code] {
    std::optional<emu::Journal> journal;
    bool temporary_work_dir = false;
    if (!resume->empty()) {
      const std::string path = (std::filesystem::path(*resume) / "journal.jsonl").string();
      journal = emu::read_journal(path);
      auto r = resumed_options(*journal, path);
      *opts = r.scenario;
      *eo = r.emulation;
      *out = r.out;
      *force = r.force;
      temporary_work_dir = r.temporary_work_dir;
    } else if (opts->scenario.empty()) {
      throw util::InputError("scenario: a scenario file is required (or --resume WORK_DIR)");
    }
    auto scenario = load(*opts);
    if (scenario.workload.packing_mode)
      throw util::InputError(scenario.file, scenario.workload.mode_line, "workload.mode",
                             "packing places pods that never end: there is nothing to emulate in wall-clock time");
    std::string dir = out->empty() ? "results/" + scenario.name + "-emulated" : *out;
    util::check_results_target(dir, *force);
    if (!journal) {
      if (!(*agents_timeout_s > 0 && *agents_timeout_s <= 86400))
        throw util::InputError(
            fmt::format("--agents-timeout: must be in (0, 86400] seconds, got {}", *agents_timeout_s));
      eo->agents_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(*agents_timeout_s * 1000));
      if (!gpus->empty()) eo->gpus = emu::parse_gpu_list(*gpus, "--gpus");
      if (!eo->gpu_profile.empty() && eo->gpus.empty()) throw util::InputError("--gpu-profile: only with --gpus");
      nlohmann::json o = {{"scenario", absolute(opts->scenario)},
                          {"sets", opts->sets},
                          {"out", absolute(dir)},
                          {"force", *force},
                          {"speedup", eo->speedup},
                          {"token_file", absolute(eo->token_file)},
                          {"external_agents", eo->external_agents},
                          {"agents_timeout_ms", eo->agents_timeout.count()},
                          {"heartbeat_timeout_ms", eo->heartbeat_timeout_ms},
                          {"keep_work", eo->keep_work}};
      if (opts->seed) o["seed"] = *opts->seed;
      if (!gpus->empty()) {
        o["gpus"] = *gpus;
        o["gpu_profile"] = absolute(eo->gpu_profile);
      }
      eo->journal_options = std::move(o);
    }
    util::Notices notices;
    eo->simulate = [&notices](const config::Scenario& twin, const sim::RunHooks& hooks) {
      run::run_scenario(twin, notices, "", false, {}, hooks);
    };
    emu::Emulation emulation(*eo, notices);
    if (journal) emulation.resume_from(std::move(*journal), temporary_work_dir);
    auto hooks = emulation.hooks(scenario,
                                 [](const std::string& line) { fmt::print(stderr, "schedlab emulate: {}\n", line); });
    auto outcome = run::run_scenario(scenario, notices, dir, *force, {}, hooks);
    const auto& st = emulation.stats();
    fmt::print("scenario {} (emulated, speedup {}): {} on {} ({} GPUs), seed {}\n", scenario.name, eo->speedup,
               policy_label(scenario.scheduler), scenario.cluster.name, outcome.summary.total_gpus, scenario.seed);
    fmt::print("{}", metrics::format_summary_table(outcome.summary));
    fmt::print("emulation: {:.1f} s wall; clock lag p50 {:.2f} ms, p99 {:.2f} ms; scheduling latency p50 {:.1f} ms, p99 "
               "{:.1f} ms; agent restarts {}, agents registered again {}, planned kills {}\n",
               st.wall_s, st.clock_lag_p50_ms, st.clock_lag_p99_ms, st.start_latency_p50_ms, st.start_latency_p99_ms,
               st.agent_restarts, st.agent_reregistrations, st.planned_kills);
    fmt::print("fidelity (the same scenario and seed, simulated):\n{}", emu::format_fidelity_table(emulation.fidelity()));
    fmt::print("results: {}/\n", dir);
    exit_code = 0;
  });
}

}  // namespace schedlab::cli
