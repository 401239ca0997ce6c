// One emulation of a scenario: the wall clock, the controller, the executor and (unless the
// agents are external) the local agents, wired into run_scenario's hooks so that the loop,
// the scheduler, the collector and the results folder are the simulation's own code. What
// reaches the loop from outside is journaled (WORK_DIR/journal.jsonl); a resumed emulation
// replays the journal into a fresh loop, then starts the controller on the same address and
// adopts the agents (and their tasks) that outlived the killed one. After
// the run it adds emulation.json to the results: the clock lag (how late instants were
// handled against the scaled wall clock) and the scheduling latency (a start decision to all
// its tasks running), p50 and p99, in wall milliseconds.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <memory>
#include <optional>
#include <string>

#include "config/scenario.h"
#include "emu/controller/controller.h"
#include "emu/controller/emu_executor.h"
#include "emu/controller/fidelity.h"
#include "emu/controller/inbox.h"
#include "emu/controller/journal.h"
#include "emu/controller/journal_clock.h"
#include "emu/controller/local_agents.h"
#include "emu/controller/real_gpus.h"
#include "emu/controller/wall_clock.h"
#include "emu/endpoint.h"
#include "sim/run_hooks.h"

namespace schedlab::emu {

struct EmulationOptions {
  double speedup = 100;
  std::string listen = "127.0.0.1:0";  // the controller's address
  std::string token_file;              // required for a non-loopback address
  bool external_agents = false;
  std::chrono::milliseconds agents_timeout{30000};  // all hosts must have an agent by then
  std::string work_dir;  // checkpoints and agents' logs; "" = a fresh folder under TMPDIR, removed after
  bool keep_work = false;
  std::uint32_t heartbeat_timeout_ms = 5000;
  // The command's own options, for the journal's header (`emulate --resume` runs them again);
  // the emulation adds "listen" (the port it got) and "work_dir".
  nlohmann::json journal_options = nlohmann::json::object();
  // How long a resumed emulation waits for the agents of the killed controller before it
  // starts new local ones for the hosts still missing.
  std::chrono::milliseconds adopt_wait{8000};
  // `--gpus`: real GPU indices of this machine, one per cluster GPU (real_gpus.h); empty: the
  // tasks sleep through their steps on virtual GPUs. `gpu_profile`: the calibration profile whose
  // bf16 rates size the steps' GEMMs ("" = the datasheet).
  std::vector<std::uint32_t> gpus;
  std::string gpu_profile;
  // Runs a scenario in simulation with these hooks, writing nothing: the twin the emulation is
  // measured against. Given by the command, since running a scenario (run/) sits above emu/.
  std::function<void(const config::Scenario&, const sim::RunHooks&)> simulate;
};

struct EmulationStats {
  double clock_lag_p50_ms = 0, clock_lag_p99_ms = 0;
  double start_latency_p50_ms = 0, start_latency_p99_ms = 0;
  std::uint64_t agent_restarts = 0;
  std::uint64_t agent_reregistrations = 0;  // agents that registered again (hosts lost and back)
  std::uint64_t planned_kills = 0;  // failure plan kills carried out
  double wall_s = 0;
};

class Emulation {
 public:
  // `notices`: the command's, for the token file and the simulated twin (the same run's notices:
  // each is said once).
  Emulation(EmulationOptions options, util::Notices& notices);
  ~Emulation();
  // Before hooks(): continue the emulation that wrote `journal` (its work folder is
  // options.work_dir) instead of starting one.
  void resume_from(Journal journal, bool temporary_work_dir);
  // The hooks for run_scenario. `announce` prints where the controller listens. After the
  // emulation, the scenario is simulated too and fidelity.json and fidelity.csv are added to
  // the results.
  sim::RunHooks hooks(const config::Scenario& scenario, std::function<void(const std::string&)> announce);
  const EmulationStats& stats() const { return stats_; }
  const Fidelity& fidelity() const { return fidelity_; }

 private:
  sim::Driver drive(const cluster::Topology& topo, perf::PerfModel& perf, const sim::LifecycleConfig& lifecycle);
  // Starts the controller and the agents, and waits until every host has one (`adopting`:
  // first for the agents of a killed controller, then new ones for the hosts still missing).
  void connect(const cluster::Topology& topo, bool adopting);
  // The end of a journal's replay: the executor speaks to agents again, the controller learns
  // what should be running and starts, and the clock runs on from the journal's anchor.
  void handover(const cluster::Topology& topo, engine::Time last);
  void wire_journal(bool clock_known);
  // The failure plan (scenario `emulation.failures`), carried out at its trace times; on
  // resume, the kills whose time passed before are skipped.
  void run_plan(bool skip_past);
  void finish(const sim::RunHooks::PathOf& path_of, const metrics::Collector& collector,
              const metrics::Summary& summary);

  EmulationOptions options_;
  util::Notices& notices_;
  Endpoint listen_;  // --listen, parsed once
  std::string token_;
  std::string work_dir_;
  bool own_work_dir_ = false;
  std::function<void(const std::string&)> announce_;
  std::unique_ptr<WallClock> clock_;
  std::unique_ptr<Controller> controller_;
  std::unique_ptr<EmuExecutor> executor_;
  std::unique_ptr<Inbox> inbox_;
  std::optional<JournalWriter> journal_;
  std::optional<Journal> resume_;
  std::unique_ptr<JournalClock> replay_;
  std::unique_ptr<LocalAgents> agents_;
  std::optional<RealGpus> real_gpus_;  // with options_.gpus
  std::chrono::steady_clock::time_point started_;
  const config::Scenario* scenario_ = nullptr;
  std::thread plan_;
  std::mutex plan_mu_;
  std::condition_variable plan_wake_;
  bool plan_stop_ = false;
  std::atomic<std::uint64_t> planned_kills_{0};
  std::atomic<std::uint64_t> planned_agent_kills_{0};
  std::size_t executor_hosts_ = 1;
  EmulationStats stats_;
  Fidelity fidelity_;
};

// Whether `address` is a loopback address (127.0.0.0/8, ::1, localhost).
bool is_loopback(const std::string& address);
// The path of the running schedlab binary (agents and workers are this binary).
std::string self_executable();

}  // namespace schedlab::emu
