// The emulate executor: a run is one real process per task, launched by the agent of each
// task's host (`schedlab worker` by default). Starting a run sends launch commands; stopping it
// sends the kill sequence (SIGTERM, then SIGKILL after the grace period, or at once after a
// failure); the run ends when every task exited 0, and fails when one died. Agents' reports
// reach it in the loop's thread (through the wall clock's inbox), and it tells the run what
// happened through sim::OutsideEvents. It also measures the scheduling latency: from the
// decision to start a run to all its tasks reported running.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "emu/controller/gang_ports.h"
#include "emu/protocol.h"
#include "lifecycle/lifecycle_config.h"
#include "perf/perf_model.h"
#include "sim/clock.h"
#include "sim/executor.h"

namespace schedlab::emu {

// Where the executor's commands go: the controller's agents, by host.
class AgentLink {
 public:
  virtual ~AgentLink() = default;
  // Any thread. Queued until the host's agent polls (or sent at once to a held poll).
  virtual void send(cluster::HostId host, Command command) = 0;
  // The address other tasks reach the host's tasks at (a gang's MASTER_ADDR).
  virtual std::string address_of(cluster::HostId host) const = 0;
};

// `emulate --gpus`: every task runs `worker --gpu` on real GPUs. Each step's GEMM is sized so
// that, at the calibrated bf16 rate of the placement's slowest GPU model, it takes the wall time
// the perf model gives the step: a step that runs slower or faster than that shows in the
// fidelity report. The allreduce is not sized from the job's model yet (0 bytes).
struct GpuSteps {
  bool on = false;
  std::vector<double> flops_per_s;  // by cluster::ModelId: the calibrated bf16 rate
  double step_wall_us = 20'000;     // a step's predicted wall time
};

// The worker options of one task's step: units per step and the GEMM's flops (exposed for tests).
struct GpuStepPlan {
  std::int64_t step_units = 1;
  double gemm_flops = 0;
};
GpuStepPlan plan_gpu_step(double flops_per_s, double speed, double speedup, double step_wall_us);

struct EmuExecutorOptions {
  double speedup = 100;
  std::string self_exe;          // the schedlab binary agents run as `worker`
  std::string checkpoint_root;   // job folders: <root>/job-<id>
  GangPortsConfig ports;          // where gangs' MASTER_PORTs come from (gang_ports.h)
  // This emulation's identity, given to every task (SCHEDLAB_EMULATION_ID): a rank joins only
  // a rank 0 of the same emulation (rendezvous.h). One token of printable characters.
  std::string emulation_id = "-";
  lifecycle::LifecycleConfig lifecycle;
  GpuSteps gpu;
};

class EmuExecutor final : public sim::Executor {
 public:
  EmuExecutor(const cluster::Topology& topo, perf::PerfModel& perf, AgentLink& agents, EmuExecutorOptions options);

  void start(sim::RunId run, const workload::JobSpec& job, const cluster::Placement& placement, engine::Time now,
             double work, engine::Time delay) override;
  bool is_current(const engine::Event& completion) const override;
  void finished(sim::RunId run, engine::Time now) override;
  double stop(sim::RunId run, engine::Time now, bool graceful) override;
  double progress(sim::RunId run, engine::Time now) const override;

  // Loop thread: what the agent of `host` reported about one task.
  void on_report(cluster::HostId host, const TaskReport& report, engine::Time now, sim::OutsideEvents& outside);
  // Loop thread: the host's agent was lost; its tasks are gone with it.
  void on_host_lost(cluster::HostId host);
  // Whether any task is still running or any run still waits for its end.
  bool live() const { return !tasks_.empty() || !runs_.empty(); }
  // A failure plan's worker kill (SIGKILL, so the gang fails as a crash would): task `rank` of
  // `job`'s live run, or of the live run number `draw` (mod their count) when job is any.
  // Returns what it killed ("" when there was nothing to kill).
  std::string kill_task(std::uint32_t job, std::uint32_t rank, std::uint64_t draw);
  // While a journal is replayed (emulate --resume): commands are not sent (they were, before
  // the controller was killed) and no start latency is measured.
  void set_replaying(bool on) { replaying_ = on; }
  // The tasks it believes are on `host` (a resumed controller checks them against what the
  // host's agent lists when it registers again).
  std::vector<std::string> tasks_on(cluster::HostId host) const;
  // After a replay: the kill of every task of a stopped run, again (the first one may have
  // been lost with the controller; an agent ignores the kill of a task it no longer runs).
  void kill_stopped_again();
  // The scheduling latency of each run, in wall milliseconds (docs/emulation.md): from start()
  // (the loop's decision, as its launch commands are handed to the agents' link) to the loop
  // applying the report that makes the last of its tasks heard of (an agent reports a task
  // running once its fork and exec succeeded; an exit heard first counts too: it ran). Runs
  // started while a journal is replayed have none.
  const std::vector<double>& start_latency_ms() const { return start_latency_ms_; }

 private:
  struct RunState {
    workload::JobId job = 0;
    double work = 0;     // to do, this run
    double speed = 1;
    engine::Time ready_at = 0;  // progress starts here (after a restore)
    engine::Time save = 0;      // a graceful stop's save, in trace time
    std::uint32_t ranks = 0;
    std::uint32_t running = 0;  // ranks reported running (or done)
    std::uint32_t done = 0;     // ranks that exited 0
    std::chrono::steady_clock::time_point decided;
    bool stopped = false;  // stop() sent the kill sequence: its reports no longer count
    bool failing = false;  // a task died: run_failed was reported
    bool ended = false;    // all tasks exited 0: run_ended was reported
  };
  struct LiveTask {
    sim::RunId run = 0;
    workload::JobId job = 0;
    cluster::HostId host = 0;
    std::vector<std::uint16_t> gpu_indexes;
    std::uint16_t port = 0;  // its gang's MASTER_PORT, lent from ports_ (0: a gang of one)
    bool seen_running = false;
    std::optional<std::uint32_t> kill_grace_ms;  // its run was stopped: the kill was sent
    bool launched = false;  // its launch was sent (else it waits in held_)
  };
  // A launch that waits for the job's stopped tasks to exit: a resize starts the job again in
  // the instant it stops it, and the new gang must resume from the checkpoint the old one is
  // still saving (and on GPUs it has left).
  struct HeldLaunch {
    cluster::TaskSlot slot;
    LaunchCommand command;
  };
  // Takes the task's GPU indexes and sends its launch.
  void launch(const cluster::TaskSlot& slot, LaunchCommand command);
  // True while a task of the job's earlier runs is stopping (killed, not yet exited).
  bool stopping(workload::JobId job) const;
  // Sends the held launches of every job none of whose tasks is stopping any more.
  void release_held();
  void send(cluster::HostId host, Command command);
  static std::string task_name(workload::JobId job, sim::RunId run, std::uint32_t rank);
  std::vector<std::uint16_t> take_gpus(cluster::HostId host, const cluster::TaskSlot& slot);
  // The calibrated bf16 rate of the placement's slowest GPU model (options_.gpu), flop/s.
  double gpu_rate(const cluster::Placement& placement) const;
  void drop_task(std::unordered_map<std::string, LiveTask>::iterator it);

  const cluster::Topology& topo_;
  perf::PerfModel& perf_;
  AgentLink& agents_;
  EmuExecutorOptions options_;
  std::unordered_map<sim::RunId, RunState> runs_;
  std::unordered_map<std::string, LiveTask> tasks_;
  std::map<workload::JobId, std::vector<HeldLaunch>> held_;
  GangPorts ports_;
  std::vector<std::vector<bool>> gpu_used_;  // by host, by GPU index
  std::vector<double> start_latency_ms_;
  bool replaying_ = false;
};

}  // namespace schedlab::emu
