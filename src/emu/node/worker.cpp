// The worker's life: configuration from the command line and the environment, then restore,
// lockstep steps, checkpoints and stops (see worker.h).
#include "emu/node/worker.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "calib/gpu_step.h"
#include "metrics/summary.h"
#include "emu/node/checkpoint_file.h"
#include "emu/node/rendezvous.h"
#include "perf/perf_model.h"
#include "util/checked.h"
#include "util/error.h"
#include "util/parse.h"

namespace schedlab::emu {

namespace {

using Clock = std::chrono::steady_clock;
using State = StopControl::State;

// A step lasts at least this long in wall time (sleeping for less would make the barrier's
// round trips a visible share of the time); the progress file is rewritten at most this often.
constexpr double kMinStepWallUs = 10'000;
constexpr auto kProgressEvery = std::chrono::milliseconds(50);
constexpr std::int64_t kMaxWorldSize = 65536;

// ---- configuration ------------------------------------------------------------------------

const std::string kNoFile;

util::FieldContext option(std::string_view name) { return util::FieldContext{kNoFile, 0, name}; }

double real_option(const std::string& text, std::string_view name, double lo, double hi, bool lo_open = false) {
  const auto where = option(name);
  return util::checked_real(util::parse_double(util::trim(text), where), where, lo, hi, lo_open);
}

std::int64_t whole_option(const std::string& text, std::string_view name, std::int64_t lo, std::int64_t hi) {
  const auto where = option(name);
  return util::checked_int<std::int64_t>(util::parse_double(util::trim(text), where), where, lo, hi);
}

std::chrono::milliseconds seconds_option(const std::string& text, std::string_view name, double lo, double hi) {
  const double s = real_option(text, name, lo, hi);
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(s * 1000)));
}

// An environment variable, empty counting as unset.
std::optional<std::string> env_value(const Environment& env, const char* name) {
  const char* v = env(name);
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

std::int64_t env_int(const std::string& text, const std::string& field, std::int64_t lo, std::int64_t hi) {
  const util::FieldContext where{kNoFile, 0, field};
  return util::checked_int<std::int64_t>(util::parse_int(util::trim(text), where), where, lo, hi);
}

// One token that travels on the rendezvous' wire: printable, no spaces, bounded.
void check_token(const std::string& v, const std::string& field, std::size_t max_len) {
  if (v.size() > max_len)
    throw util::InputError("", 0, field, fmt::format("'{}...' is longer than {} characters", v.substr(0, 32), max_len));
  for (char c : v)
    if (c <= 0x20 || c >= 0x7f)
      throw util::InputError("", 0, field, fmt::format("'{}' may hold only printable characters without spaces", v));
}

// CUDA_VISIBLE_DEVICES: indices or GPU-/MIG- UUIDs, comma-separated (CUDA itself applies it).
void check_visible_devices(const std::string& v) {
  std::vector<std::string_view> parts;
  util::split_fields(v, ',', parts);
  for (auto p : parts) {
    p = util::trim(p);
    std::int64_t i = 0;
    const bool index = util::try_parse_int(p, i) && i >= 0;
    const bool uuid = (p.substr(0, 4) == "GPU-" || p.substr(0, 4) == "MIG-") && p.size() > 4;
    if (!index && !uuid)
      throw util::InputError("", 0, "env CUDA_VISIBLE_DEVICES",
                             fmt::format("'{}' is not a list of GPU indices or GPU-/MIG- UUIDs (e.g. 0,1)", v));
  }
}

void check_folder(const std::string& path, const std::string& field) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec))
    throw util::InputError(path, 0, field, "is not a folder (the checkpoint folder must exist)");
}

void check_file_target(const std::string& path, const std::string& field) {
  std::error_code ec;
  const std::filesystem::path p(path);
  if (std::filesystem::is_directory(p, ec) || p.filename().empty())
    throw util::InputError(path, 0, field, "is a folder; give a file name");
  const auto parent = p.parent_path().empty() ? std::filesystem::path(".") : p.parent_path();
  if (!std::filesystem::is_directory(parent, ec)) throw util::InputError(path, 0, field, "its folder does not exist");
}

// ---- timing ---------------------------------------------------------------------------------

// `t` plus `us` wall microseconds, saturating about 30 years out (a deadline never reached).
Clock::time_point after(Clock::time_point t, double us) {
  constexpr double kFar = 1e15;
  const double clamped = std::isfinite(us) ? std::clamp(us, 0.0, kFar) : kFar;
  return t + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::micro>(clamped));
}

const Clock::time_point kNever = Clock::time_point::max();

// ---- the run --------------------------------------------------------------------------------

enum class Woke { ready, stop, broken, timeout };

class WorkerRun {
 public:
  WorkerRun(const WorkerConfig& c, StopControl& stop, const WorkerHooks& hooks) : c_(c), stop_(stop), hooks_(hooks) {}

  WorkerResult run() {
    // Rank 0 holds the job's checkpoint and tells the others where the job stands.
    std::int64_t start = 0;
    if (c_.rank == 0 && !c_.checkpoint_dir.empty()) {
      if (auto saved = read_checkpoint(c_.checkpoint_dir)) {
        if (*saved > c_.work)
          throw util::InputError((std::filesystem::path(c_.checkpoint_dir) / kCheckpointFileName).string(), 2, "work",
                                 fmt::format("{} is more than the job's work (--work-us {})", *saved, c_.work));
        start = *saved;
      }
    }
    std::int64_t step = c_.step > 0 ? c_.step : default_step(c_.speed, c_.speedup);
    const std::string gang_id = hooks_.gpu && c_.rank == 0 ? hooks_.gpu->new_gang_id() : "-";

    RendezvousConfig rc;
    rc.rank = c_.rank;
    rc.world_size = c_.world_size;
    rc.address = c_.master_addr;
    rc.port = c_.master_port;
    rc.emulation = c_.emulation_id;
    rc.job_id = c_.job_id;
    rc.plan = fmt::format("work={},interval={},gpus={}", c_.work, c_.checkpoint_interval,
                          hooks_.gpu ? hooks_.gpu->local_gpus() : 0);
    rc.announce = fmt::format("{} {} {}", start, step, gang_id);
    rc.connect_timeout = c_.rendezvous_timeout;
    rv_.emplace(rc, [this] { stop_.notify(); });
    if (c_.rank == 0 && c_.world_size > 1 && hooks_.on_listening && !rv_->broken()) hooks_.on_listening(rv_->port());

    // The gang forms.
    switch (wait(after(Clock::now(), us(c_.rendezvous_timeout)), [&] { return rv_->started(); })) {
      case Woke::ready:
        break;
      case Woke::stop:
        return on_stop();
      case Woke::broken:
        return on_broken(*rv_->broken());
      case Woke::timeout:
        return on_broken(fmt::format("the gang of {} did not form within {:.3g} s", c_.world_size,
                                     std::chrono::duration<double>(c_.rendezvous_timeout).count()));
    }
    std::string id = gang_id;
    if (c_.rank != 0 && !parse_announce(rv_->announce(), start, step, id))
      return on_broken(fmt::format("rank 0 announced '{}', not 'WORK STEP ID'", rv_->announce().substr(0, 80)));
    work_ = start;
    saved_ = start;
    known_ = true;
    progress(true);
    if (hooks_.gpu) hooks_.gpu->join(id, static_cast<int>(c_.rank), static_cast<int>(c_.world_size));

    // A restart from a checkpoint restores it first: no progress meanwhile.
    if (start > 0 && c_.restore > 0) {
      if (Woke w = wait(after(Clock::now(), wall_us(static_cast<double>(c_.restore))), [] { return false; });
          w != Woke::timeout)
        return w == Woke::stop ? on_stop() : on_broken(*rv_->broken());
    }
    // Round 0: every rank is ready, the steps' clock starts for all at once.
    if (Woke w = barrier(0); w != Woke::ready) return w == Woke::stop ? on_stop() : on_broken(*rv_->broken());
    const Clock::time_point t0 = Clock::now();
    const double wall_per_unit = 1.0 / (c_.speed * c_.speedup);
    std::uint64_t round = 0;

    while (work_ < c_.work) {
      std::int64_t next = std::min(c_.work, work_ + step);
      // Periodic checkpoints fall on multiples of the interval, as the simulator counts them.
      if (c_.checkpoint_interval > 0) next = std::min(next, (work_ / c_.checkpoint_interval + 1) * c_.checkpoint_interval);
      if (hooks_.gpu) {
        const auto began = Clock::now();
        const bool done =
            hooks_.gpu->run([&] { return stop_.state() == State::running && !rv_->stopping() && !rv_->broken(); });
        if (done) gpu_step_ms_.push_back(std::chrono::duration<double, std::milli>(Clock::now() - began).count());
        if (!done) return stop_.state() != State::running || rv_->stopping() ? on_stop() : on_broken(*rv_->broken());
      } else {
        // Deadlines count from the common start, so that late wake-ups and barrier round trips
        // do not add up over the steps.
        const auto deadline = after(t0, static_cast<double>(next - start) * wall_per_unit);
        if (Woke w = wait(deadline, [] { return false; }); w != Woke::timeout)
          return w == Woke::stop ? on_stop() : on_broken(*rv_->broken());
      }
      if (Woke w = barrier(++round); w != Woke::ready) return w == Woke::stop ? on_stop() : on_broken(*rv_->broken());
      work_ = next;
      if (hooks_.on_step) hooks_.on_step(work_);
      if (c_.rank == 0 && !c_.checkpoint_dir.empty() && c_.checkpoint_interval > 0 &&
          work_ % c_.checkpoint_interval == 0 && work_ > saved_) {
        write_checkpoint(c_.checkpoint_dir, work_);
        saved_ = work_;
      }
      progress(false);
    }
    rv_->leave();
    progress(true);
    return {WorkerOutcome::finished, work_, "", std::move(gpu_step_ms_)};
  }

 private:
  const WorkerConfig& c_;
  StopControl& stop_;
  const WorkerHooks& hooks_;
  std::optional<Rendezvous> rv_;
  std::int64_t work_ = 0;   // through the last step the whole gang finished
  std::int64_t saved_ = 0;  // in the checkpoint
  bool known_ = false;      // work_ is the job's (ranks > 0 learn it from rank 0)
  Clock::time_point last_progress_{};
  std::vector<double> gpu_step_ms_;

  static double us(std::chrono::milliseconds ms) { return static_cast<double>(ms.count()) * 1000.0; }
  double wall_us(double trace_us) const { return trace_us / c_.speedup; }

  // Sleeps until `ready()`, a stop request, a broken gang or `deadline`, whichever is first.
  template <class Ready>
  Woke wait(Clock::time_point deadline, Ready ready) {
    for (;;) {
      stop_.wait_until(deadline, State::running,
                       [&] { return ready() || rv_->stopping() || rv_->broken().has_value(); });
      // A step the whole gang finished still counts when a graceful stop arrives with it.
      if (stop_.state() == State::cut_short) return Woke::stop;
      if (ready()) return Woke::ready;
      if (stop_.state() != State::running || rv_->stopping()) return Woke::stop;
      if (rv_->broken()) return Woke::broken;
      if (Clock::now() >= deadline) return Woke::timeout;
    }
  }

  Woke barrier(std::uint64_t round) {
    rv_->arrive(round);
    return wait(kNever, [&] { return rv_->released() >= static_cast<std::int64_t>(round); });
  }

  static bool parse_announce(const std::string& text, std::int64_t& start, std::int64_t& step, std::string& id) {
    std::vector<std::string_view> w;
    util::split_fields(text, ' ', w);
    std::int64_t a = 0, b = 0;
    if (w.size() != 3 || !util::try_parse_int(w[0], a) || !util::try_parse_int(w[1], b) || a < 0 || b < 1) return false;
    start = a;
    step = b;
    id = std::string(w[2]);
    return true;
  }

  void progress(bool now) {
    if (c_.progress_file.empty() || !known_) return;
    const auto t = Clock::now();
    if (!now && t - last_progress_ < kProgressEvery) return;
    write_progress(c_.progress_file, work_);
    last_progress_ = t;
  }

  // A graceful stop (asked of this rank, or of another rank of the gang) saves everything the
  // gang finished, which takes the save time; a second request during the save cuts it short
  // (the file is renamed into place only when complete).
  WorkerResult on_stop() {
    if (stop_.state() != State::cut_short) {
      rv_->stop();  // the gang stops with this rank
      const auto deadline = after(Clock::now(), wall_us(static_cast<double>(c_.save)));
      // A first request arriving meanwhile (the gang's stop came first) does not cut the save short.
      for (State seen = stop_.state(); seen != State::cut_short && Clock::now() < deadline; seen = stop_.state())
        stop_.wait_until(deadline, seen, [] { return false; });
      if (stop_.state() != State::cut_short) {
        if (c_.rank == 0 && !c_.checkpoint_dir.empty() && known_ && work_ > saved_) {
          write_checkpoint(c_.checkpoint_dir, work_);
          saved_ = work_;
        }
        progress(true);
        return {WorkerOutcome::stopped, work_, "", std::move(gpu_step_ms_)};
      }
    }
    try {
      progress(true);
    } catch (const util::EnvironmentError&) {
      // Cut short: the progress file is a courtesy here, not worth a different exit.
    }
    return {WorkerOutcome::cut_short, work_, "", std::move(gpu_step_ms_)};
  }

  // A rank of a broken gang stalls, as data-parallel training does in its collective, then
  // fails. A stop request meanwhile ends the stall at once but saves nothing: a failure is never
  // graceful (only the periodic checkpoint survives, as in the simulator).
  WorkerResult on_broken(std::string why) {
    stop_.wait_until(after(Clock::now(), us(c_.peer_timeout)), stop_.state(), [] { return false; });
    progress(true);
    return {WorkerOutcome::gang_broken, work_, std::move(why), std::move(gpu_step_ms_)};
  }
};

}  // namespace

std::string format_gpu_steps(const std::vector<double>& step_ms) {
  if (step_ms.empty()) return "gpu steps: 0";
  std::string line = fmt::format("gpu steps: {}; first {:.3f} ms", step_ms.size(), step_ms.front());
  if (step_ms.size() < 2) return line;
  std::vector<double> rest(step_ms.begin() + 1, step_ms.end());
  std::sort(rest.begin(), rest.end());
  double sum = 0;
  for (double v : rest) sum += v;
  return line + fmt::format("; then median {:.3f} ms, mean {:.3f} ms, min {:.3f} ms, max {:.3f} ms",
                            metrics::percentile(rest, 50), sum / static_cast<double>(rest.size()), rest.front(),
                            rest.back());
}

// ---- StopControl --------------------------------------------------------------------------------

StopControl::State StopControl::request() {
  State s;
  {
    std::lock_guard lock(m_);
    state_ = state_ == State::running ? State::graceful : State::cut_short;
    s = state_;
  }
  cv_.notify_all();
  return s;
}

StopControl::State StopControl::state() const {
  std::lock_guard lock(m_);
  return state_;
}

void StopControl::notify() {
  { std::lock_guard lock(m_); }  // a waiter between its check and its sleep cannot miss this
  cv_.notify_all();
}

// ---- configuration --------------------------------------------------------------------------

Environment process_environment() {
  return [](const char* name) { return std::getenv(name); };
}

std::int64_t default_step(double speed, double speedup) {
  const double units = std::ceil(kMinStepWallUs * speed * speedup);
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(std::min(units, 1e15)), 1, util::kMaxInputTime);
}

WorkerConfig worker_config(const WorkerArgs& a, const Environment& env) {
  WorkerConfig c;
  auto required = [](const std::string& v, const char* name) {
    if (util::trim(v).empty()) throw util::InputError("", 0, name, "required");
  };
  required(a.work_us, "--work-us");
  required(a.speed, "--speed");
  required(a.speedup, "--speedup");
  c.work = whole_option(a.work_us, "--work-us", 0, util::kMaxInputTime);
  c.speed = real_option(a.speed, "--speed", perf::kMinSpeed, perf::kMaxSpeed);
  c.speedup = real_option(a.speedup, "--speedup", 1e-6, 1e9);
  if (!a.step_us.empty()) c.step = whole_option(a.step_us, "--step-us", 1, util::kMaxInputTime);
  if (!a.checkpoint_interval_us.empty())
    c.checkpoint_interval = whole_option(a.checkpoint_interval_us, "--checkpoint-interval-us", 0, util::kMaxInputTime);
  if (!a.save_us.empty()) c.save = whole_option(a.save_us, "--save-us", 0, util::kMaxInputTime);
  if (!a.restore_us.empty()) c.restore = whole_option(a.restore_us, "--restore-us", 0, util::kMaxInputTime);
  if (!a.peer_timeout_s.empty()) c.peer_timeout = seconds_option(a.peer_timeout_s, "--peer-timeout-s", 0, 3600);
  if (!a.rendezvous_timeout_s.empty())
    c.rendezvous_timeout = seconds_option(a.rendezvous_timeout_s, "--rendezvous-timeout-s", 0.001, 86400);

  c.gpu = a.gpu;
  if (a.gpu) {
    required(a.gemm_flops, "--gemm-flops");
    required(a.allreduce_bytes, "--allreduce-bytes");
    c.gemm_flops = real_option(a.gemm_flops, "--gemm-flops", 0, 1e17);
    c.allreduce_bytes = static_cast<double>(whole_option(a.allreduce_bytes, "--allreduce-bytes", 0, std::int64_t{1} << 36));
    c.nccl_lib = a.nccl_lib;
    if (auto v = env_value(env, "CUDA_VISIBLE_DEVICES")) check_visible_devices(*v);
  } else {
    for (const auto& [v, name] : {std::pair{&a.gemm_flops, "--gemm-flops"}, std::pair{&a.allreduce_bytes, "--allreduce-bytes"},
                                  std::pair{&a.nccl_lib, "--nccl-lib"}})
      if (!v->empty()) throw util::InputError("", 0, name, "only with --gpu");
  }

  // The gang, as torchrun-style launchers describe it.
  const auto world = env_value(env, "WORLD_SIZE");
  const auto rank = env_value(env, "RANK");
  c.world_size = world ? static_cast<std::uint32_t>(env_int(*world, "env WORLD_SIZE", 1, kMaxWorldSize)) : 1;
  if (rank) {
    c.rank = static_cast<std::uint32_t>(env_int(*rank, "env RANK", 0, kMaxWorldSize - 1));
    if (c.rank >= c.world_size)
      throw util::InputError("", 0, "env RANK",
                             fmt::format("{} is not a rank of a gang of {} (WORLD_SIZE): ranks are 0 to {}", c.rank,
                                         c.world_size, c.world_size - 1));
  } else if (c.world_size > 1) {
    throw util::InputError("", 0, "env RANK", fmt::format("missing, with WORLD_SIZE {}", c.world_size));
  }
  if (auto v = env_value(env, "LOCAL_RANK"))
    c.local_rank = static_cast<std::uint32_t>(env_int(*v, "env LOCAL_RANK", 0, kMaxWorldSize - 1));
  if (c.world_size > 1) {
    const auto addr = env_value(env, "MASTER_ADDR");
    const auto port = env_value(env, "MASTER_PORT");
    if (!addr)
      throw util::InputError("", 0, "env MASTER_ADDR", fmt::format("missing, with WORLD_SIZE {}", c.world_size));
    if (!port)
      throw util::InputError("", 0, "env MASTER_PORT", fmt::format("missing, with WORLD_SIZE {}", c.world_size));
    check_token(*addr, "env MASTER_ADDR", 253);
    c.master_addr = *addr;
    c.master_port = static_cast<std::uint16_t>(env_int(*port, "env MASTER_PORT", 1, 65535));
  }
  if (auto v = env_value(env, "SCHEDLAB_JOB_ID")) {
    check_token(*v, "env SCHEDLAB_JOB_ID", 128);
    c.job_id = *v;
  }
  if (auto v = env_value(env, "SCHEDLAB_EMULATION_ID")) {
    check_token(*v, "env SCHEDLAB_EMULATION_ID", 128);
    c.emulation_id = *v;
  }

  // Files: the checkpoint folder matters to rank 0 only (it alone reads and writes it).
  c.checkpoint_dir = !a.checkpoint_dir.empty() ? a.checkpoint_dir : env_value(env, "SCHEDLAB_CHECKPOINT_DIR").value_or("");
  const char* dir_field = !a.checkpoint_dir.empty() ? "--checkpoint-dir" : "env SCHEDLAB_CHECKPOINT_DIR";
  if (c.rank == 0) {
    if (!c.checkpoint_dir.empty()) check_folder(c.checkpoint_dir, dir_field);
    if (c.checkpoint_interval > 0 && c.checkpoint_dir.empty())
      throw util::InputError("", 0, "--checkpoint-interval-us",
                             "needs a checkpoint folder (--checkpoint-dir or SCHEDLAB_CHECKPOINT_DIR)");
  }
  c.progress_file = !a.progress_file.empty() ? a.progress_file : env_value(env, "SCHEDLAB_PROGRESS_FILE").value_or("");
  if (!c.progress_file.empty())
    check_file_target(c.progress_file, !a.progress_file.empty() ? "--progress-file" : "env SCHEDLAB_PROGRESS_FILE");
  return c;
}

int worker_exit_code(WorkerOutcome outcome) {
  switch (outcome) {
    case WorkerOutcome::finished:
      return kWorkerExitDone;
    case WorkerOutcome::stopped:
    case WorkerOutcome::cut_short:
      return kWorkerExitStopped;
    case WorkerOutcome::gang_broken:
      return kWorkerExitGangBroken;
  }
  return kWorkerExitGangBroken;
}

WorkerResult run_worker(const WorkerConfig& config, StopControl& stop, const WorkerHooks& hooks) {
  return WorkerRun(config, stop, hooks).run();
}

}  // namespace schedlab::emu
