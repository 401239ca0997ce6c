// Stop pricing, checkpoint costs and failure victims.
#include "sim/stop_accounting.h"

#include <algorithm>
#include <cmath>

#include "util/checked.h"

namespace schedlab::sim {

workload::CheckpointCost checkpoint_for(const workload::JobSpec& job, const LifecycleConfig& lifecycle,
                                        const perf::PerfModel& perf) {
  workload::CheckpointCost model;
  const bool has_model = perf.checkpoint_cost(job, model);
  // Per field: the trace's column, else the scenario's `checkpoint:`, else the model catalog.
  auto pick = [&](float trace_s, engine::Time scenario, engine::Time from_model) {
    if (trace_s >= 0) return engine::from_seconds(trace_s);
    if (lifecycle.checkpoint_set) return scenario;
    return has_model ? from_model : engine::Time{0};
  };
  const auto& s = lifecycle.checkpoint;
  return {pick(job.ckpt_interval_s, s.interval, model.interval), pick(job.ckpt_save_s, s.save, model.save),
          pick(job.ckpt_restore_s, s.restore, model.restore)};
}

bool saves_on_preemption(const LifecycleConfig& lifecycle, const workload::CheckpointCost& ckpt) {
  return lifecycle.grace > 0 && ckpt.save <= lifecycle.grace;
}

engine::Time stop_hold(const LifecycleConfig& lifecycle, const workload::CheckpointCost& ckpt) {
  if (lifecycle.grace <= 0) return 0;
  return std::min(lifecycle.grace, ckpt.save);
}

double job_progress(const sched::JobLife& life, bool fully_started, bool has_runs, double least_run) {
  if (life.state != sched::JobState::running || !fully_started || !has_runs) return life.work_done;
  return std::min(life.work_done + least_run, life.work_total);
}

engine::Time keeps_work_from(const Attempt& a, const workload::CheckpointCost& ckpt, const LifecycleConfig& lifecycle,
                             engine::Time now) {
  if (a.done >= a.total) return now;
  const bool every_bit = saves_on_preemption(lifecycle, ckpt) || ckpt.interval <= 0;
  // The work a stop must keep beyond `restored`: at least what the stop and the restart cost
  // (save and restore, counted at the traced speed), so that each eviction leaves the job at
  // least as much ahead as it spent, and at least a microsecond. When only periodic
  // checkpoints survive, the first one past that.
  const double overhead =
      std::max(1.0, static_cast<double>(ckpt.restore) + static_cast<double>(stop_hold(lifecycle, ckpt)));
  double target = a.restored + overhead;
  if (!every_bit) {
    const double step = static_cast<double>(ckpt.interval);
    target = std::ceil(target / step) * step;
  }
  if (target >= a.total) return engine::kTimeMax;  // it finishes first
  if (a.done >= target) return now;
  // When, at the speed this run had so far (the traced speed before it made any progress).
  const engine::Time began = std::max(a.progress_from, now);
  double rate = 1.0;
  if (now > a.progress_from && a.done > a.restored)
    rate = (a.done - a.restored) / static_cast<double>(now - a.progress_from);
  const double need = target - a.done;
  const engine::Time wait = util::time_from_double_clamped(std::ceil(need / rate));
  return std::max(util::add_time(now, 1), util::add_time(began, wait));
}

bool keeps_all_work(bool preempted, bool service, const LifecycleConfig& lifecycle,
                    const workload::CheckpointCost& ckpt) {
  // A graceful preemption saves everything if the save fits in the grace period; otherwise
  // (and always after a failure) the job keeps only its last periodic checkpoint. A service
  // keeps no state of its own here: it loses nothing.
  return (preempted && saves_on_preemption(lifecycle, ckpt)) || service;
}

StopPrice price_stop(const workload::CheckpointCost& ckpt, bool keeps_all, double done, double restored,
                     engine::Time progress_from, engine::Time now, double gpus, engine::Time hold) {
  StopPrice p;
  p.saved = keeps_all ? done : workload::last_checkpoint(ckpt, done, restored);
  // Thrown-away work is priced at the wall time this attempt took per unit of work.
  const double progressed = done - restored;
  const double wall = static_cast<double>(std::max<engine::Time>(now - progress_from, 0));
  p.lost = done - p.saved;
  p.wall_per_work = progressed > 0 ? wall / progressed : 0.0;
  p.lost_gpu_us = p.lost * p.wall_per_work * gpus;
  p.hold_gpu_us = gpus * static_cast<double>(hold);
  return p;
}

CutSave price_cut_save(const workload::CheckpointCost& ckpt, double saved, double done_at_stop,
                       double restored_at_stop, double wall_per_work, double gpus, engine::Time hold_until,
                       engine::Time now) {
  CutSave c;
  c.kept = workload::last_checkpoint(ckpt, done_at_stop, restored_at_stop);
  c.lost_gpu_us = (saved - c.kept) * wall_per_work * gpus;
  c.unspent_gpu_us = static_cast<double>(std::max<engine::Time>(hold_until - now, 0)) * gpus;
  c.lost = saved - c.kept;
  return c;
}

std::vector<workload::JobId> failure_victims(const std::vector<HeldRun>& runs, cluster::HostId host, bool whole,
                                             std::uint32_t gpu, std::uint32_t working,
                                             const std::vector<std::uint16_t>& shares) {
  std::vector<workload::JobId> victims;
  if (whole) {
    for (const auto& r : runs) victims.push_back(r.job);
  } else {
    std::uint32_t idx = gpu % working;
    bool found = false;
    for (const auto& r : runs) {
      for (const auto& t : r.placement->tasks) {
        if (t.host != host || t.milli) continue;
        if (idx < t.gpus) {
          victims.push_back(r.job);
          found = true;
          break;
        }
        idx -= t.gpus;
      }
      if (found) break;
    }
    for (std::size_t slot = 0; slot < shares.size() && !found; ++slot) {
      if (shares[slot] == 0) continue;
      if (idx-- > 0) continue;
      found = true;
      for (const auto& r : runs)
        for (const auto& t : r.placement->tasks)
          if (t.host == host && t.milli && t.share_slot == slot) victims.push_back(r.job);
    }
  }
  std::sort(victims.begin(), victims.end());
  victims.erase(std::unique(victims.begin(), victims.end()), victims.end());
  return victims;
}

}  // namespace schedlab::sim
