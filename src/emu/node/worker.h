// `schedlab worker`, the emulator's default task process, as a library that tests run in-process.
// A worker stands for one task of a training job: it does the job's work (trace microseconds at
// the traced speed, "work units") at the pace the perf model gave its placement (`speed` units
// per trace microsecond) with trace time running `speedup` times faster than wall time, so one
// unit takes 1 / (speed × speedup) wall microseconds. It resumes from its job's checkpoint
// (paying the restore), advances in steps in lockstep with the rest of its gang (rendezvous.h),
// saves a periodic checkpoint every `checkpoint_interval` units, saves everything on a graceful
// stop (paying the save) and ends when the work is done: the life docs/lifecycle.md describes,
// as the simulator prices it. docs/worker.md is the user's view.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace schedlab::calib {
class GpuStep;
}

namespace schedlab::emu {

// Exit statuses of `schedlab worker` (a second SIGTERM or SIGINT kills it by that signal instead).
inline constexpr int kWorkerExitDone = 0;
inline constexpr int kWorkerExitBadInput = 2;   // a bad option, environment variable or checkpoint
inline constexpr int kWorkerExitNoGpu = 3;      // --gpu without a GPU or CUDA; a file that cannot be written
inline constexpr int kWorkerExitGangBroken = 4;  // a rank of the gang was lost, or the gang never formed
inline constexpr int kWorkerExitStopped = 143;  // stopped after a graceful save (128 + SIGTERM)

// The command line as typed; empty = not given. worker_config checks every value.
struct WorkerArgs {
  std::string work_us, speed, speedup, step_us, checkpoint_interval_us, save_us, restore_us;
  std::string checkpoint_dir, progress_file;
  std::string peer_timeout_s, rendezvous_timeout_s;
  bool gpu = false;
  std::string gemm_flops, allreduce_bytes, nccl_lib;
};

struct WorkerConfig {
  std::int64_t work = 0;                 // W: the job's total work, in work units
  double speed = 1;                      // S: work units per trace microsecond on this placement
  double speedup = 1;                    // X: trace microseconds per wall microsecond
  std::int64_t step = 0;                 // U: work units per step; 0 = default_step(speed, speedup)
  std::int64_t checkpoint_interval = 0;  // C: work units between periodic checkpoints; 0 = none
  std::int64_t save = 0;                 // V: trace microseconds a graceful save takes
  std::int64_t restore = 0;              // R: trace microseconds a restore takes
  std::string checkpoint_dir;            // D: where rank 0 keeps `checkpoint`; empty = nowhere
  std::string progress_file;             // F: this rank's progress file; empty = none
  std::chrono::milliseconds peer_timeout{5000};         // a broken gang stalls this long, then exits
  std::chrono::milliseconds rendezvous_timeout{60000};  // for the gang to form
  bool gpu = false;
  double gemm_flops = 0, allreduce_bytes = 0;
  std::string nccl_lib;
  // The gang (torchrun's environment).
  std::uint32_t rank = 0, world_size = 1, local_rank = 0;
  std::string master_addr;
  std::uint16_t master_port = 0;
  std::string job_id = "-";
  std::string emulation_id = "-";  // SCHEDLAB_EMULATION_ID: a rank joins only its own emulation's gang
};

// An environment variable's value, or null when it is unset.
using Environment = std::function<const char*(const char* name)>;
Environment process_environment();

// The checked configuration: every number within its range and sense, the environment's gang
// consistent (RANK < WORLD_SIZE, MASTER_ADDR/PORT for a gang of more than one), the folders
// present. Throws InputError naming the option or variable (`--speed: ...`, `env RANK: ...`).
WorkerConfig worker_config(const WorkerArgs& args, const Environment& env);

// Work units per step when --step-us is not given: a step of at least 10 ms wall.
std::int64_t default_step(double speed, double speedup);

// Stop requests, and the one place a worker's thread sleeps: SIGTERM/SIGINT (through the CLI's
// signal thread) or a test asks; the rendezvous wakes it when the gang moves. Thread-safe.
class StopControl {
 public:
  enum class State { running, graceful, cut_short };
  // The first request asks for a graceful stop, any later one cuts it short.
  State request();
  State state() const;
  // Wakes the waiter so that it checks its condition again.
  void notify();
  // Waits until `ready()` holds, the state is no longer `seen`, or `deadline` passes.
  template <class Ready>
  void wait_until(std::chrono::steady_clock::time_point deadline, State seen, Ready ready) {
    std::unique_lock lock(m_);
    cv_.wait_until(lock, deadline, [&] { return state_ != seen || ready(); });
  }

 private:
  mutable std::mutex m_;
  std::condition_variable cv_;
  State state_ = State::running;
};

enum class WorkerOutcome {
  finished,     // all the work is done
  stopped,      // a graceful stop: the save was paid and everything done is in the checkpoint
  cut_short,    // a second stop request during the save: only the periodic checkpoint survives
  gang_broken,  // a rank was lost or the gang never formed; the worker stalled, then gave up
};

struct WorkerResult {
  WorkerOutcome outcome = WorkerOutcome::finished;
  std::int64_t work = 0;  // work units done (through the last step the whole gang finished)
  std::string why;        // for gang_broken: what broke it
  std::vector<double> gpu_step_ms;  // with --gpu: the wall time of each GPU step this rank ran
};

// kWorkerExitDone, kWorkerExitStopped, kWorkerExitGangBroken; cut_short also maps to 143 (the
// status of a process killed by SIGTERM, which is how the command ends then).
int worker_exit_code(WorkerOutcome outcome);

// One line on a --gpu worker's step times: "gpu steps: N; first F ms; then median M ms, mean A ms,
// min m ms, max X ms" (the first step pays for cuBLAS' and NCCL's set-up; the rest is the rate).
std::string format_gpu_steps(const std::vector<double>& step_ms);

struct WorkerHooks {
  std::function<void(std::int64_t work)> on_step;        // after every step the gang finished
  std::function<void(std::uint16_t port)> on_listening;  // rank 0 of a gang: the port it serves
  calib::GpuStep* gpu = nullptr;                          // --gpu: steps run on the GPUs instead of sleeping
};

// Runs the worker to its end. Throws InputError (a malformed checkpoint) and EnvironmentError (a
// checkpoint or progress file that cannot be written, a GPU failure).
WorkerResult run_worker(const WorkerConfig& config, StopControl& stop, const WorkerHooks& hooks = {});

}  // namespace schedlab::emu
