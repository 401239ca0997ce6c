// `schedlab worker`: the emulator's default task process (src/emu/node/worker.h, docs/worker.md).
#include <fmt/format.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <thread>

#include "calib/gpu_step.h"
#include "cli/commands.h"
#include "emu/node/worker.h"
#include "util/error.h"

namespace schedlab::cli {
namespace {

// Turns SIGTERM and SIGINT into stop requests. The signals are blocked in every thread (this one
// is created first, so the others inherit the mask) and read from a signalfd by one thread: the
// first asks for a graceful stop, the second kills the process by that signal at once, whatever
// the worker is doing (even blocked in a GPU call).
class SignalWatcher {
 public:
  explicit SignalWatcher(emu::StopControl& stop) : stop_(stop) {
    sigemptyset(&set_);
    sigaddset(&set_, SIGTERM);
    sigaddset(&set_, SIGINT);
    if (pthread_sigmask(SIG_BLOCK, &set_, nullptr) != 0) throw util::EnvironmentError("worker: cannot block SIGTERM");
    signal_fd_ = ::signalfd(-1, &set_, SFD_CLOEXEC);
    wake_fd_ = ::eventfd(0, EFD_CLOEXEC);
    if (signal_fd_ < 0 || wake_fd_ < 0) throw util::EnvironmentError("worker: cannot watch for SIGTERM (signalfd)");
    thread_ = std::thread([this] { watch(); });
  }

  ~SignalWatcher() {
    const std::uint64_t one = 1;
    if (::write(wake_fd_, &one, sizeof one) < 0) {
      // The thread then waits for a signal that ends the process anyway.
    }
    thread_.join();
    ::close(signal_fd_);
    ::close(wake_fd_);
  }

  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

  int last_signal() const { return last_signal_; }

  // Ends the process by `sig` (default action), as a process killed by it would end.
  [[noreturn]] static void die_by(int sig) {
    std::fflush(nullptr);
    ::signal(sig, SIG_DFL);
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    pthread_sigmask(SIG_UNBLOCK, &s, nullptr);
    ::raise(sig);
    ::_exit(128 + sig);
  }

 private:
  void watch() {
    pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    for (;;) {
      if (::poll(fds, 2, -1) < 0) continue;  // EINTR
      if (fds[1].revents) return;
      if (!fds[0].revents) continue;
      signalfd_siginfo info{};
      if (::read(signal_fd_, &info, sizeof info) != static_cast<ssize_t>(sizeof info)) continue;
      last_signal_ = static_cast<int>(info.ssi_signo);
      if (stop_.request() == emu::StopControl::State::cut_short) die_by(last_signal_);
    }
  }

  emu::StopControl& stop_;
  sigset_t set_{};
  int signal_fd_ = -1, wake_fd_ = -1;
  std::atomic<int> last_signal_{SIGTERM};
  std::thread thread_;
};

void run_worker_command(const emu::WorkerArgs& args, CLI::App* cmd, int& exit_code) {
  if (!cmd->remaining().empty())
    throw util::InputError(
        "", 0, "worker",
        fmt::format("unexpected argument '{}' (see schedlab worker --help)", cmd->remaining().front()));
  const emu::WorkerConfig config = emu::worker_config(args, emu::process_environment());
  emu::StopControl stop;
  SignalWatcher signals(stop);
  std::unique_ptr<calib::GpuStep> gpu;
  if (config.gpu) gpu = calib::open_gpu_step({config.gemm_flops, config.allreduce_bytes, config.nccl_lib});
  emu::WorkerHooks hooks;
  hooks.gpu = gpu.get();
  const emu::WorkerResult result = emu::run_worker(config, stop, hooks);
  if (result.outcome == emu::WorkerOutcome::cut_short) SignalWatcher::die_by(signals.last_signal());
  if (result.outcome == emu::WorkerOutcome::gang_broken)
    fmt::print(stderr, "schedlab: worker: rank {} of {} (job {}): gang broken: {}; stopped at work {} of {}\n",
               config.rank, config.world_size, config.job_id, result.why, result.work, config.work);
  if (config.gpu && !result.gpu_step_ms.empty())
    fmt::print(stderr, "schedlab: worker: {}; GEMM {:.6g} flops per step\n", emu::format_gpu_steps(result.gpu_step_ms),
               gpu->gemm_flops());
  exit_code = emu::worker_exit_code(result.outcome);
}

}  // namespace

void add_worker_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<emu::WorkerArgs>();
  CLI::App* cmd = app.add_subcommand(
      "worker",
      "Run one task of an emulated training job (the default task of `schedlab emulate`): WORK units at SPEED, "
      "SPEEDUP times faster than trace time, in lockstep with its gang (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT "
      "from the environment); exit 0 done, 143 stopped after a graceful save (SIGTERM), 2 bad arguments, 3 no "
      "GPU/CUDA or a file that cannot be written, 4 gang broken");
  // Values are taken as text and checked by worker_config, so that every bad one is reported in
  // one line naming it; unknown arguments likewise.
  cmd->allow_extras();
  cmd->add_option("--work-us", a->work_us, "the job's total work W, in trace microseconds at the traced speed (required)");
  cmd->add_option("--speed", a->speed, "S: work units per trace microsecond on this placement, e.g. 0.8 (required)");
  cmd->add_option("--speedup", a->speedup, "X: trace time runs X times faster than wall time (required)");
  cmd->add_option("--step-us", a->step_us, "U: work units per step (default: a step of at least 10 ms wall)");
  cmd->add_option("--checkpoint-interval-us", a->checkpoint_interval_us,
                  "C: rank 0 saves a checkpoint at every multiple of C work units (default 0: none)");
  cmd->add_option("--save-us", a->save_us, "V: trace microseconds a graceful save takes (default 0)");
  cmd->add_option("--restore-us", a->restore_us, "R: trace microseconds a restore takes on resume (default 0)");
  cmd->add_option("--checkpoint-dir", a->checkpoint_dir, "D: the job's checkpoint folder (default: $SCHEDLAB_CHECKPOINT_DIR)");
  cmd->add_option("--progress-file", a->progress_file,
                  "F: file rewritten with the work done so far (default: $SCHEDLAB_PROGRESS_FILE)");
  cmd->add_option("--peer-timeout-s", a->peer_timeout_s,
                  "wall seconds a broken gang stalls before the worker exits 4 (default 5)");
  cmd->add_option("--rendezvous-timeout-s", a->rendezvous_timeout_s,
                  "wall seconds for the gang to form before the worker exits 4 (default 60)");
  cmd->add_flag("--gpu", a->gpu, "run each step on the GPUs (a GEMM, an NCCL allreduce) instead of sleeping");
  cmd->add_option("--gemm-flops", a->gemm_flops, "with --gpu: floating-point operations of each step's GEMM per GPU");
  cmd->add_option("--allreduce-bytes", a->allreduce_bytes, "with --gpu: bytes each step allreduces among the gang's GPUs");
  cmd->add_option("--nccl-lib", a->nccl_lib, "with --gpu: path of libnccl.so.2 (default: search, as calibrate does)");
  cmd->callback([a, cmd, &exit_code] { run_worker_command(*a, cmd, exit_code); });
}

}  // namespace schedlab::cli
