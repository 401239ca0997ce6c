// Runs as real processes: launch, kill sequence, reports turned into ends and failures.
#include "emu/controller/emu_executor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/stop_accounting.h"
#include "util/checked.h"

namespace schedlab::emu {

EmuExecutor::EmuExecutor(const cluster::Topology& topo, perf::PerfModel& perf, AgentLink& agents,
                         EmuExecutorOptions options)
    : topo_(topo),
      perf_(perf),
      agents_(agents),
      options_(std::move(options)),
      ports_(options_.ports),
      gpu_used_(topo.hosts().size()) {
  for (cluster::HostId h = 0; h < topo.hosts().size(); ++h) gpu_used_[h].assign(topo.host(h).gpus, false);
}

GpuStepPlan plan_gpu_step(double flops_per_s, double speed, double speedup, double step_wall_us) {
  GpuStepPlan p;
  const double units_per_wall_us = speed * speedup;
  p.step_units = std::clamp<std::int64_t>(
      static_cast<std::int64_t>(std::min(std::ceil(step_wall_us * units_per_wall_us), 1e15)), 1, util::kMaxInputTime);
  // The worker takes at most 1e17 flops a step: beyond, the step is slower than planned, and says so in fidelity.
  p.gemm_flops = std::min(1e17, flops_per_s * (static_cast<double>(p.step_units) / units_per_wall_us) * 1e-6);
  return p;
}

double EmuExecutor::gpu_rate(const cluster::Placement& placement) const {
  double rate = 0;
  for (const auto& slot : placement.tasks) {
    const double r = options_.gpu.flops_per_s.at(topo_.host(slot.host).model);
    rate = rate == 0 ? r : std::min(rate, r);
  }
  return rate;
}

std::string EmuExecutor::task_name(workload::JobId job, sim::RunId run, std::uint32_t rank) {
  return fmt::format("j{}-r{}-t{}", job, run, rank);
}

std::vector<std::uint16_t> EmuExecutor::take_gpus(cluster::HostId host, const cluster::TaskSlot& slot) {
  auto& used = gpu_used_[host];
  std::vector<std::uint16_t> out;
  if (slot.milli) {
    // A share of one GPU: the shared GPU's index (shares are not exclusive).
    out.push_back(static_cast<std::uint16_t>(std::min<std::size_t>(slot.share_slot, used.size() - 1)));
    return out;
  }
  for (std::uint16_t i = 0; i < used.size() && out.size() < slot.gpus; ++i)
    if (!used[i]) {
      used[i] = true;
      out.push_back(i);
    }
  return out;
}

void EmuExecutor::start(sim::RunId run, const workload::JobSpec& job, const cluster::Placement& placement,
                        engine::Time now, double work, engine::Time delay) {
  RunState r;
  r.job = job.id;
  r.work = work;
  r.speed = perf_.speed(job, placement, topo_);
  r.ready_at = util::add_time(now, delay);
  r.ranks = static_cast<std::uint32_t>(placement.tasks.size());
  r.decided = std::chrono::steady_clock::now();
  const auto ckpt = sim::checkpoint_for(job, options_.lifecycle, perf_);
  // Resized: the old gang saves first, then this one restores. Together they take the restart
  // the simulator charged (`delay`: elastic.restart_s, or the save and the restore).
  const bool wait = stopping(job.id);
  const engine::Time restore = wait ? std::max<engine::Time>(delay - ckpt.save, 0) : ckpt.restore;
  r.save = ckpt.save;
  // The simulator's interval 0 means "nothing is ever lost": the worker then saves as often as
  // a synced file write allows, every 100 ms of wall time (so a failure loses at most that).
  const engine::Time interval =
      ckpt.interval > 0 ? ckpt.interval
                        : std::max<engine::Time>(1, util::time_from_double_clamped(0.1e6 * options_.speedup * r.speed));
  const std::string master = agents_.address_of(placement.tasks.front().host);
  // A gang of one needs no rendezvous over the network (rendezvous.h), so no port.
  const std::uint16_t port = r.ranks > 1 ? ports_.lend(r.ranks) : 0;
  std::map<cluster::HostId, std::uint32_t> local_ranks;
  for (std::uint32_t rank = 0; rank < r.ranks; ++rank) {
    const auto& slot = placement.tasks[rank];
    LaunchCommand cmd;
    cmd.task = task_name(job.id, run, rank);
    cmd.job = job.id;
    cmd.run = run;
    cmd.rank = rank;
    // The worker resumes from its job's checkpoint folder: its whole work is the job's. A
    // service's is endless; a worker's longest (a century) outlasts any emulation.
    cmd.argv = {options_.self_exe,
                "worker",
                "--work-us",
                fmt::format("{}", std::min(job.duration, util::kMaxInputTime)),
                "--speed",
                fmt::format("{:.17g}", r.speed),
                "--speedup",
                fmt::format("{:.17g}", options_.speedup),
                "--checkpoint-interval-us",
                fmt::format("{}", interval),
                "--save-us",
                fmt::format("{}", ckpt.save),
                "--restore-us",
                fmt::format("{}", restore)};
    if (options_.gpu.on) {
      const auto plan = plan_gpu_step(gpu_rate(placement), r.speed, options_.speedup, options_.gpu.step_wall_us);
      cmd.argv.insert(cmd.argv.end(), {"--gpu", "--step-us", fmt::format("{}", plan.step_units), "--gemm-flops",
                                       fmt::format("{:.17g}", plan.gemm_flops), "--allreduce-bytes", "0"});
    }
    LiveTask t;
    t.run = run;
    t.job = job.id;
    t.host = slot.host;
    t.port = port;
    cmd.env = {{"SCHEDLAB_JOB_ID", std::to_string(job.id)},
               {"SCHEDLAB_EMULATION_ID", options_.emulation_id},
               {"RANK", std::to_string(rank)},
               {"WORLD_SIZE", std::to_string(r.ranks)},
               {"LOCAL_RANK", std::to_string(local_ranks[slot.host]++)},
               {"MASTER_ADDR", master}};
    if (port != 0) cmd.env["MASTER_PORT"] = std::to_string(port);
    cmd.checkpoint_dir = fmt::format("{}/job-{}", options_.checkpoint_root, job.id);
    tasks_.emplace(cmd.task, std::move(t));
    if (wait)
      held_[job.id].push_back({slot, std::move(cmd)});
    else
      launch(slot, std::move(cmd));
  }
  runs_.emplace(run, r);
}

void EmuExecutor::launch(const cluster::TaskSlot& slot, LaunchCommand command) {
  auto found = tasks_.find(command.task);
  if (found == tasks_.end()) return;  // its host was lost while it waited
  auto& t = found->second;
  t.gpu_indexes = take_gpus(slot.host, slot);
  t.launched = true;
  std::string visible;
  for (auto g : t.gpu_indexes) visible += (visible.empty() ? "" : ",") + std::to_string(g);
  command.env["CUDA_VISIBLE_DEVICES"] = visible;
  send(slot.host, std::move(command));
}

bool EmuExecutor::stopping(workload::JobId job) const {
  for (const auto& [name, t] : tasks_)
    if (t.job == job && t.kill_grace_ms) return true;
  return false;
}

void EmuExecutor::release_held() {
  for (auto it = held_.begin(); it != held_.end();) {
    if (stopping(it->first)) {
      ++it;
      continue;
    }
    for (auto& h : it->second) launch(h.slot, std::move(h.command));
    it = held_.erase(it);
  }
}

bool EmuExecutor::is_current(const engine::Event& e) const {
  auto it = runs_.find(e.subject);
  return it != runs_.end() && it->second.ended && !it->second.stopped;
}

void EmuExecutor::send(cluster::HostId host, Command command) {
  if (!replaying_) agents_.send(host, std::move(command));
}

std::vector<std::string> EmuExecutor::tasks_on(cluster::HostId host) const {
  std::vector<std::string> out;
  for (const auto& [name, t] : tasks_)
    if (t.host == host && t.launched) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

void EmuExecutor::kill_stopped_again() {
  for (const auto& [name, t] : tasks_)
    if (t.kill_grace_ms) send(t.host, KillCommand{name, *t.kill_grace_ms});
}

void EmuExecutor::finished(sim::RunId run, engine::Time) { runs_.erase(run); }

double EmuExecutor::progress(sim::RunId run, engine::Time now) const {
  auto it = runs_.find(run);
  if (it == runs_.end()) return 0;
  const auto& r = it->second;
  if (now <= r.ready_at) return 0;
  return std::min(static_cast<double>(now - r.ready_at) * r.speed, r.work);
}

double EmuExecutor::stop(sim::RunId run, engine::Time now, bool graceful) {
  auto it = runs_.find(run);
  if (it == runs_.end()) return 0;
  const double done = progress(run, now);
  // A graceful stop lets the tasks save: for a preemption within its grace period, for a resize
  // whatever the grace period (the simulator keeps all of a resized job's work), with half a
  // second more than the save for the process to get to it before the SIGKILL.
  const auto wall_ms = [&](engine::Time trace) { return static_cast<double>(trace) / options_.speedup / 1000.0; };
  const auto grace_ms =
      graceful ? static_cast<std::uint32_t>(std::clamp(
                     std::max(wall_ms(options_.lifecycle.grace), wall_ms(it->second.save) + 500.0), 0.0, 3.6e6))
               : 0u;
  // Launches still held (stopped again before its predecessor exited) are never sent.
  if (auto held = held_.find(it->second.job); held != held_.end()) {
    std::erase_if(held->second, [&](const HeldLaunch& h) { return h.command.run == run; });
    if (held->second.empty()) held_.erase(held);
  }
  for (auto t = tasks_.begin(); t != tasks_.end();) {
    if (t->second.run == run && !t->second.launched) {
      if (t->second.port != 0) ports_.give_back(t->second.port);
      t = tasks_.erase(t);
      continue;
    }
    if (t->second.run == run) {
      t->second.kill_grace_ms = grace_ms;
      send(t->second.host, KillCommand{t->first, grace_ms});
    }
    ++t;
  }
  // Its tasks' exits still arrive (and free their GPU indexes) but no longer count.
  runs_.erase(it);
  return done;
}

void EmuExecutor::drop_task(std::unordered_map<std::string, LiveTask>::iterator it) {
  auto& used = gpu_used_[it->second.host];
  for (auto g : it->second.gpu_indexes)
    if (g < used.size()) used[g] = false;
  if (it->second.port != 0) ports_.give_back(it->second.port);
  const bool was_stopping = it->second.kill_grace_ms.has_value();
  tasks_.erase(it);
  if (was_stopping && !held_.empty()) release_held();
}

void EmuExecutor::on_report(cluster::HostId host, const TaskReport& report, engine::Time now,
                            sim::OutsideEvents& outside) {
  auto it = tasks_.find(report.task);
  if (it == tasks_.end()) {
    // Not ours (any more): a task of a run that failed with its lost host, say. Still alive:
    // it must not hold GPUs the scheduler gave to others.
    if (report.state == TaskState::running) send(host, KillCommand{report.task, 0});
    return;
  }
  auto run_it = runs_.find(it->second.run);
  RunState* r = run_it == runs_.end() ? nullptr : &run_it->second;
  // A task heard of for the first time ran (an exit means it started too): the run's start
  // latency ends when the last of its tasks is heard of.
  if (r && !it->second.seen_running && ++r->running == r->ranks && !replaying_)
    start_latency_ms_.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - r->decided).count());
  it->second.seen_running = true;
  if (report.state == TaskState::running) return;
  const bool ok = report.state == TaskState::exited && report.exit_code == 0;
  const sim::RunId run = it->second.run;
  drop_task(it);
  if (!r || r->failing || r->ended) return;
  if (ok) {
    if (++r->done == r->ranks) {
      r->ended = true;
      outside.run_ended(run, now);
    }
    return;
  }
  r->failing = true;
  outside.run_failed(run, host, now);
}

std::string EmuExecutor::kill_task(std::uint32_t job, std::uint32_t rank, std::uint64_t draw) {
  std::vector<sim::RunId> live;
  for (const auto& [id, r] : runs_)
    if (!r.ended && !r.failing && (job == ~std::uint32_t{0} || r.job == job)) live.push_back(id);
  if (live.empty()) return {};
  std::sort(live.begin(), live.end());  // a deterministic choice among them
  const sim::RunId run = live[draw % live.size()];
  const auto& r = runs_.at(run);
  const std::string name = task_name(r.job, run, rank % r.ranks);
  auto it = tasks_.find(name);
  if (it == tasks_.end()) return {};  // that task is done already
  send(it->second.host, KillCommand{name, 0});
  return name;
}

void EmuExecutor::on_host_lost(cluster::HostId host) {
  for (auto it = tasks_.begin(); it != tasks_.end();) {
    if (it->second.host != host) {
      ++it;
      continue;
    }
    auto& used = gpu_used_[host];
    for (auto g : it->second.gpu_indexes)
      if (g < used.size()) used[g] = false;
    if (it->second.port != 0) ports_.give_back(it->second.port);
    it = tasks_.erase(it);
  }
  if (!held_.empty()) release_held();
}

}  // namespace schedlab::emu
