// The simulate loop: all events of one instant (ends, saves that end, repairs, failures,
// arrivals, key timers), then one scheduling pass, then its stops, then its starts.
#include "sim/simulation.h"

#include "pools/pools_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/sim_executor.h"
#include "util/checked.h"
#include "util/error.h"
#include "util/notice.h"
#include "util/suggest.h"

namespace schedlab::sim {

Simulation::Simulation(const cluster::Topology& topo, const sched::SchedulerConfig& scheduler,
                       workload::JobSource& source, perf::PerfModel& perf, metrics::RunObserver& observer,
                       std::string trace_name, LifecycleConfig lifecycle, FailureSource* failures, Driver driver)
    : topo_(topo),
      source_(source),
      perf_(perf),
      observer_(observer),
      trace_name_(std::move(trace_name)),
      lifecycle_(lifecycle),
      failures_(failures),
      alloc_(topo),
      requests_(topo.catalog(), source.strings(), trace_name_),
      scheduler_(scheduler, sched::builtin_parts(), topo, this),
      own_executor_(driver.executor ? nullptr : std::make_unique<SimExecutor>(queue_, perf, topo)),
      executor_(driver.executor ? driver.executor : own_executor_.get()),
      clock_(driver.clock) {
  scheduler_.set_strings(&source.strings());
}

// --- the ledger the scheduler reads ------------------------------------------------------

double Simulation::work_done(workload::JobId id, engine::Time now) const {
  if (!active(id)) return 0;
  const auto& rt = runtime(id);
  const double base = rt.life.work_done;
  if (rt.life.state != sched::JobState::running || !rt.fully_started || rt.runs.empty()) return base;
  // Tasks of a job resume from one checkpoint: the job is as far as its slowest run.
  double least = std::numeric_limits<double>::infinity();
  for (RunId r : rt.runs) least = std::min(least, executor_->progress(r, now));
  return std::min(base + least, rt.life.work_total);
}

std::uint64_t Simulation::user_held_milli(workload::Label user) const {
  auto it = user_milli_.find(user);
  return it == user_milli_.end() ? 0 : it->second;
}

void Simulation::held_slots(workload::JobId id, std::vector<cluster::TaskSlot>& out) const {
  out.clear();
  if (!active(id)) return;
  for (RunId r : runtime(id).runs) {
    const auto& tasks = runs_.at(r).placement.tasks;
    out.insert(out.end(), tasks.begin(), tasks.end());
  }
}

engine::Time Simulation::stop_hold(workload::JobId id) const {
  if (lifecycle_.grace <= 0 || !active(id)) return 0;
  return std::min(lifecycle_.grace, runtime(id).ckpt.save);
}

bool Simulation::saves_on_preemption(const JobRuntime& rt) const {
  return lifecycle_.grace > 0 && rt.ckpt.save <= lifecycle_.grace;
}

engine::Time Simulation::keeps_work_from(workload::JobId id, engine::Time now) const {
  if (!active(id)) return now;
  const auto& rt = runtime(id);
  if (rt.life.state != sched::JobState::running) return now;
  // A job not fully started (incremental admission) makes no progress yet: it is evicted
  // only once it has run whole and gained its cost, or two such jobs could take each
  // other's GPUs forever without either making progress.
  if (!rt.fully_started) return engine::kTimeMax;
  const double restored = rt.life.work_done;
  const double done = work_done(id, now);
  if (done >= rt.life.work_total) return now;
  const bool every_bit = saves_on_preemption(rt) || rt.ckpt.interval <= 0;
  // The work a stop must keep beyond `restored`: at least what the stop and the restart cost
  // (save and restore, counted at the traced speed), so that each eviction leaves the job at
  // least as much ahead as it spent, and at least a microsecond. When only periodic
  // checkpoints survive, the first one past that.
  const double overhead = std::max(1.0, static_cast<double>(rt.ckpt.restore) + static_cast<double>(stop_hold(id)));
  double target = restored + overhead;
  if (!every_bit) {
    const double step = static_cast<double>(rt.ckpt.interval);
    target = std::ceil(target / step) * step;
  }
  if (target >= rt.life.work_total) return engine::kTimeMax;  // it finishes first
  if (done >= target) return now;
  // When, at the speed this run had so far (the traced speed before it made any progress).
  const engine::Time began = std::max(rt.progress_from, now);
  double rate = 1.0;
  if (now > rt.progress_from && done > restored)
    rate = (done - restored) / static_cast<double>(now - rt.progress_from);
  const double need = target - done;
  const engine::Time wait = time_from_double_clamped(std::ceil(need / rate));
  return std::max(add_time(now, 1), add_time(began, wait));
}

// --- arrivals and failures ---------------------------------------------------------------

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

bool Simulation::pull_next_job() {
  workload::JobSpec spec;
  if (!source_.next(spec)) {
    source_done_ = true;
    return false;
  }
  spec.id = static_cast<workload::JobId>(jobs_.size());
  jobs_.push_back(spec);
  take_slot(spec.id);
  queue_.push(spec.submit, engine::EventClass::arrival, spec.id);
  return true;
}

void Simulation::pull_next_failure() {
  FailureEvent f;
  if (!failures_ || !failures_->next(f)) return;
  pending_failures_.push_back(f);
  queue_.push(f.at, engine::EventClass::failure, pending_failures_.size() - 1);
}

void Simulation::hold_changed(workload::JobId id, std::int64_t delta_milli) {
  auto& rt = runtime(id);
  rt.life.held_milli = static_cast<std::uint64_t>(static_cast<std::int64_t>(rt.life.held_milli) + delta_milli);
  // The user's counter, found once per job (map nodes never move, and users are never erased).
  if (!rt.user_milli) rt.user_milli = &user_milli_[jobs_[id].user];
  *rt.user_milli = static_cast<std::uint64_t>(static_cast<std::int64_t>(*rt.user_milli) + delta_milli);
}

void Simulation::take_slot(workload::JobId id) {
  if (slot_of_.size() <= id) slot_of_.resize(id + 1, kNoSlot);
  if (free_slots_.empty()) {
    slot_of_[id] = static_cast<std::uint32_t>(rt_pool_.size());
    rt_pool_.emplace_back();
    return;
  }
  slot_of_[id] = free_slots_.back();
  free_slots_.pop_back();
  auto& r = rt_pool_[slot_of_[id]];
  auto runs = std::move(r.runs);  // keeps its capacity: no allocation per job
  r = JobRuntime{};
  runs.clear();
  r.runs = std::move(runs);
}

void Simulation::release_slot(workload::JobId id) {
  free_slots_.push_back(slot_of_[id]);
  slot_of_[id] = kNoSlot;
}

void Simulation::job_left(workload::JobId id, engine::Time now) {
  --active_jobs_;
  const auto& job = jobs_[id];
  auto it = active_users_.find(job.user);
  if (it != active_users_.end() && --it->second == 0) active_users_.erase(it);
  if (job.kind == workload::JobKind::service) {
    live_services_.erase(id);
    if (auto s = service_state_.find(job.group); s != service_state_.end()) s->second.wanted.erase(id);
    long_running_stats_.wanted(job.group, now, -1);
  } else {
    --active_batch_;
    if (job.kind == workload::JobKind::cron) cron_ended(id);
  }
}

void Simulation::handle(const engine::Event& e) {
  switch (e.cls) {
    case engine::EventClass::arrival: {
      const auto& job = jobs_[e.subject];
      auto& rt = runtime(e.subject);
      ++stats_.jobs;
      rt.life.work_total = static_cast<double>(job.duration);
      rt.life.pending_since = e.time;
      rt.ckpt = checkpoint_for(job, lifecycle_, perf_);
      ++active_jobs_;
      ++active_users_[job.user];
      if (pool_book_) pool_book_->assign(job.id, pool_assigner_->pool_of(job, source_.strings(), trace_name_));
      auto arrival = Arrival::go;
      if (job.kind != workload::JobKind::batch) note_group(job);
      if (job.kind == workload::JobKind::service) {
        // An instance makes no progress to speak of: it runs until it is no longer wanted,
        // and loses nothing when it stops (a service keeps no state of its own here).
        rt.ckpt = {};
        rt.life.work_total = static_cast<double>(engine::kTimeMax);
        long_running_stats_.wanted(job.group, e.time, +1);
        service_arrived(job);
        if (job.duration == engine::kTimeMax)
          live_services_.insert(job.id);
        else
          queue_.push(add_time(e.time, job.duration), engine::EventClass::retire, job.id);
      } else {
        ++active_batch_;
        if (job.kind == workload::JobKind::cron) arrival = cron_arrives(job.id, e.time);
      }
      if (arrival == Arrival::go) enter_scheduler(job.id, e.time, true);
      if (arrival == Arrival::held) observer_.on_submit(job, e.time);
      // The next arrival, possibly at this same instant (a job from outside pulls none).
      if (!outside_jobs_.erase(job.id)) pull_next_job();
      break;
    }
    case engine::EventClass::completion: {
      if (!executor_->is_current(e)) break;  // superseded by a speed change, or stopped
      auto it = runs_.find(e.subject);
      executor_->finished(e.subject, e.time);
      Run run = std::move(it->second);
      runs_.erase(it);
      alloc_.release(run.placement);
      auto& rt = runtime(run.job);
      auto& life = rt.life;
      std::erase(rt.runs, e.subject);
      const auto milli = run.placement.used_milli();
      hold_changed(run.job, -static_cast<std::int64_t>(milli));
      rt.held_gpus -= run.placement.gpus();
      life.attained_gpu_us += static_cast<double>(milli) / 1000.0 * static_cast<double>(e.time - run.start);
      const bool done = rt.runs.empty() && rt.fully_started;
      if (done) {
        life.attained += e.time - life.run_start;
        life.run_start = -1;
        life.work_done = life.work_total;
        life.state = sched::JobState::finished;
        --running_jobs_;
        scheduler_.job_ended(run.job, e.time);
        job_left(run.job, e.time);
      }
      observer_.on_run_end(jobs_[run.job], run.placement, run.start, e.time, done);
      if (done) {
        observer_.on_life({metrics::LifeStep::finish, e.time, &jobs_[run.job], &life});
        release_slot(run.job);
      }
      break;
    }
    case engine::EventClass::stop_done: {
      if (!active(static_cast<workload::JobId>(e.subject))) break;  // failed for good during its save
      auto& rt = runtime(e.subject);
      if (rt.life.state != sched::JobState::stopping || rt.stop_version != e.version) break;
      finish_stop(static_cast<workload::JobId>(e.subject), e.time, true);
      break;
    }
    case engine::EventClass::repair: {
      const auto& [host, n] = repairs_[e.subject];
      alloc_.set_up(host, n);
      break;
    }
    case engine::EventClass::failure: {
      const FailureEvent f = pending_failures_[e.subject];
      fail_host(f, e.time);
      if (!f.until_back) pull_next_failure();
      break;
    }
    case engine::EventClass::run_failure: {
      const auto [run, host] = run_failures_[e.subject];
      auto it = runs_.find(run);
      if (it == runs_.end()) break;  // stopped or ended meanwhile
      const workload::JobId id = it->second.job;
      auto& rt = runtime(id);
      if (rt.life.state == sched::JobState::stopping) break;  // its save ends it anyway
      ++stats_.failures;
      scheduler_.job_stopped(id, sched::StopCause::task_failed);
      stop_job(id, e.time, sched::StopCause::task_failed, sched::kNoJob, false, 0, host);
      break;
    }
    case engine::EventClass::timer:
      scheduler_.on_timer(static_cast<workload::JobId>(e.subject), e.version, e.time);
      break;
    case engine::EventClass::wake:
      break;
    case engine::EventClass::retire:
      retire(static_cast<workload::JobId>(e.subject), e.time);
      break;
    case engine::EventClass::requeue: {
      const auto id = static_cast<workload::JobId>(e.subject);
      if (!active(id)) break;
      auto& rt = runtime(id);
      if (!rt.backing_off || rt.stop_version != e.version) break;
      rt.backing_off = false;
      rt.life.pending_since = e.time;
      scheduler_.requeue(id, e.time);
      break;
    }
  }
}

// --- starts and stops --------------------------------------------------------------------

void Simulation::start_decided(engine::Time now) {
  for (auto& d : starts_) {
    auto& rt = runtime(d.job);
    auto& life = rt.life;
    const auto& job = jobs_[d.job];
    const bool first_ever = !rt.started;
    rt.started = true;
    const bool attempt_first = !rt.attempt_started;
    if (attempt_first) {
      rt.attempt_started = true;
      life.state = sched::JobState::running;
      life.run_start = now;
      ++running_jobs_;
      if (!first_ever) ++life.restarts;
      if (job.kind == workload::JobKind::service) {
        long_running_stats_.up(job.group, now, +1);
        if (!first_ever) long_running_stats_.service_restarted(job.group);
      } else if (job.kind == workload::JobKind::cron && first_ever) {
        long_running_stats_.started(job.group, now - job.submit);
      }
      // A restart from a checkpoint first restores it: GPUs held, no progress.
      rt.progress_from = add_time(now, !first_ever && life.work_done > 0 ? rt.ckpt.restore : 0);
    }
    if (d.job_fully_started) rt.fully_started = true;
    const engine::Time delay = std::max<engine::Time>(rt.progress_from - now, 0);
    RunId id = next_run_++;
    Run run{d.job, now, cluster::Placement{std::move(d.slots)}};
    const auto milli = run.placement.used_milli();
    hold_changed(d.job, static_cast<std::int64_t>(milli));
    rt.held_gpus += run.placement.gpus();
    life.lost_gpu_us += static_cast<double>(milli) / 1000.0 * static_cast<double>(delay);
    observer_.on_start(job, run.placement, now, first_ever);
    if (attempt_first) {
      metrics::LifeEvent ev{first_ever ? metrics::LifeStep::start : metrics::LifeStep::restart, now, &job, &life};
      ev.placement = &run.placement;
      observer_.on_life(ev);
    }
    executor_->start(id, job, run.placement, now, life.work_total - life.work_done, delay);
    rt.runs.push_back(id);
    runs_.emplace(id, std::move(run));
  }
  starts_.clear();
}

void Simulation::apply_stops(engine::Time now) {
  for (const auto& d : stops_) {
    ++stats_.preemptions;
    stop_job(d.job, now, d.cause, d.by, d.released, d.released ? 0 : stop_hold(d.job), 0);
  }
  stops_.clear();
}

void Simulation::stop_job(workload::JobId id, engine::Time now, sched::StopCause cause, workload::JobId by,
                          bool released, engine::Time hold, cluster::HostId host) {
  auto& rt = runtime(id);
  auto& life = rt.life;
  const double done = work_done(id, now);
  const bool preempted = sched::is_preemption(cause);
  for (RunId r : rt.runs) executor_->stop(r, now, preempted);
  // A graceful preemption saves everything if the save fits in the grace period; otherwise
  // (and always after a failure) the job keeps only its last periodic checkpoint.
  const bool service = jobs_[id].kind == workload::JobKind::service;
  const bool saves = (preempted && saves_on_preemption(rt)) || service;
  const double periodic = workload::last_checkpoint(rt.ckpt, done, life.work_done);
  const double saved = saves ? done : periodic;
  // Thrown-away work is priced at the wall time this attempt took per unit of work.
  const double progressed = done - life.work_done;
  const double wall = static_cast<double>(std::max<engine::Time>(now - rt.progress_from, 0));
  const double lost = done - saved;
  const double gpus = static_cast<double>(life.held_milli) / 1000.0;
  rt.wall_per_work = progressed > 0 ? wall / progressed : 0.0;
  life.lost_gpu_us += lost * rt.wall_per_work * gpus;
  life.lost_gpu_us += gpus * static_cast<double>(hold);
  if (preempted)
    ++life.preemptions;
  else if (cause != sched::StopCause::killed)
    ++life.failures;
  rt.last_stop_failed = !preempted && cause != sched::StopCause::killed;
  if (service) {
    long_running_stats_.up(jobs_[id].group, now, -1);
    if (rt.last_stop_failed) long_running_stats_.service_failed(jobs_[id].group);
  }
  rt.restored_at_stop = life.work_done;
  life.work_done = saved;
  rt.done_at_stop = done;
  metrics::LifeEvent ev{metrics::LifeStep::stop, now, &jobs_[id], &life, cause, by, host, lost / 1e6, hold};
  observer_.on_life(ev);
  if (hold > 0) {
    life.state = sched::JobState::stopping;
    rt.hold_until = add_time(now, hold);
    queue_.push(add_time(now, hold), engine::EventClass::stop_done, id, ++rt.stop_version);
    return;
  }
  finish_stop(id, now, !released);
}

void Simulation::release_runs(workload::JobId id, engine::Time now, bool free_gpus, bool ends) {
  auto& rt = runtime(id);
  auto& life = rt.life;
  const auto& job = jobs_[id];
  for (std::size_t i = 0; i < rt.runs.size(); ++i) {
    auto it = runs_.find(rt.runs[i]);
    Run run = std::move(it->second);
    runs_.erase(it);
    if (free_gpus) alloc_.release(run.placement);
    life.attained_gpu_us +=
        static_cast<double>(run.placement.used_milli()) / 1000.0 * static_cast<double>(now - run.start);
    observer_.on_run_end(job, run.placement, run.start, now, ends && i + 1 == rt.runs.size());
  }
  rt.runs.clear();
  hold_changed(id, -static_cast<std::int64_t>(life.held_milli));
  rt.held_gpus = 0;
  life.attained += now - life.run_start;
  life.run_start = -1;
  --running_jobs_;
  rt.attempt_started = false;
  rt.fully_started = false;
  ++rt.stop_version;
}

void Simulation::finish_stop(workload::JobId id, engine::Time now, bool free_gpus) {
  auto& rt = runtime(id);
  auto& life = rt.life;
  const auto& job = jobs_[id];
  release_runs(id, now, free_gpus, false);
  if (rt.retired) {
    scheduler_.forget(id, now);
    end_retired(id, now);
    return;
  }
  const bool service = job.kind == workload::JobKind::service;
  if (rt.killed || (!service && life.failures > lifecycle_.max_retries)) {
    // Retries exhausted (or killed by a user): the gang is terminated.
    life.state = sched::JobState::failed;
    scheduler_.forget(id, now);
    job_left(id, now);
    metrics::LifeEvent ev{metrics::LifeStep::fail, now, &job, &life,
                          rt.killed ? sched::StopCause::killed : sched::StopCause::host_failed};
    ev.lost_work_s = life.work_done / 1e6;
    observer_.on_life(ev);
    release_slot(id);
    return;
  }
  life.state = sched::JobState::pending;
  life.pending_since = now;
  if (service && rt.last_stop_failed) {
    // Marathon relaunches a failed instance after a growing delay (its launch backoff).
    rt.backing_off = true;
    queue_.push(add_time(now, backoff(job, life.failures)), engine::EventClass::requeue, id, rt.stop_version);
    return;
  }
  scheduler_.requeue(id, now);
}

void Simulation::fail_host(const FailureEvent& f, engine::Time now) {
  const cluster::HostId h = f.host;
  const std::uint16_t gpus = topo_.host(h).gpus;
  const std::uint16_t already = alloc_.down(h);
  if (already >= gpus) return;  // the whole host is down already
  ++stats_.failures;
  const bool whole = f.gpu == kWholeHost;
  // Runs with tasks on the host, in start order (deterministic).
  std::vector<RunId> on_host;
  for (const auto& [id, run] : runs_)
    for (const auto& t : run.placement.tasks)
      if (t.host == h) {
        on_host.push_back(id);
        break;
      }
  std::sort(on_host.begin(), on_host.end());
  std::vector<workload::JobId> victims;
  if (whole) {
    for (RunId r : on_host) victims.push_back(runs_.at(r).job);
  } else {
    // The failed GPU, among the host's working ones: whole-GPU tasks hold the first indexes
    // (in start order), shared GPUs the next (by slot), free GPUs the rest.
    std::uint32_t idx = f.gpu % static_cast<std::uint32_t>(gpus - already);
    bool found = false;
    for (RunId r : on_host) {
      for (const auto& t : runs_.at(r).placement.tasks) {
        if (t.host != h || t.milli) continue;
        if (idx < t.gpus) {
          victims.push_back(runs_.at(r).job);
          found = true;
          break;
        }
        idx -= t.gpus;
      }
      if (found) break;
    }
    if (!found) {
      const auto& used = alloc_.shares(h);
      for (std::size_t slot = 0; slot < used.size() && !found; ++slot) {
        if (used[slot] == 0) continue;
        if (idx-- > 0) continue;
        found = true;
        for (RunId r : on_host)
          for (const auto& t : runs_.at(r).placement.tasks)
            if (t.host == h && t.milli && t.share_slot == slot) victims.push_back(runs_.at(r).job);
      }
    }
  }
  std::sort(victims.begin(), victims.end());
  victims.erase(std::unique(victims.begin(), victims.end()), victims.end());
  const auto cause = whole ? sched::StopCause::host_failed : sched::StopCause::gpu_failed;
  for (auto id : victims) {
    auto& rt = runtime(id);
    if (rt.life.state == sched::JobState::stopping) {
      // Its checkpoint save is cut short: only the periodic checkpoint survives, and the
      // rest of the hold it had been charged is not spent.
      const double kept = workload::last_checkpoint(rt.ckpt, rt.done_at_stop, rt.restored_at_stop);
      const double gpus = static_cast<double>(rt.life.held_milli) / 1000.0;
      rt.life.lost_gpu_us += (rt.life.work_done - kept) * rt.wall_per_work * gpus;
      rt.life.lost_gpu_us -= static_cast<double>(std::max<engine::Time>(rt.hold_until - now, 0)) * gpus;
      const double lost = rt.life.work_done - kept;
      rt.life.work_done = kept;
      ++rt.life.failures;
      rt.last_stop_failed = true;
      // A second stop, by the failure: what the interrupted save would have kept is lost.
      metrics::LifeEvent ev{metrics::LifeStep::stop, now, &jobs_[id], &rt.life, cause, sched::kNoJob, h, lost / 1e6};
      observer_.on_life(ev);
      finish_stop(id, now, true);
      continue;
    }
    scheduler_.job_stopped(id, cause);
    stop_job(id, now, cause, sched::kNoJob, false, 0, h);
  }
  const std::uint16_t n = whole ? alloc_.whole_free(h) : std::uint16_t{1};
  if (n == 0 || alloc_.whole_free(h) < n) return;
  alloc_.set_down(h, n);
  if (f.until_back) {
    lost_down_[h] += n;
    return;
  }
  repairs_.emplace_back(h, n);
  queue_.push(add_time(now, std::max<engine::Time>(f.down_for, 1)), engine::EventClass::repair, repairs_.size() - 1);
}

// --- events from outside (an emulation) ----------------------------------------------------

void Simulation::run_ended(RunId run, engine::Time now) { queue_.push(now, engine::EventClass::completion, run); }

void Simulation::run_failed(RunId run, cluster::HostId host, engine::Time now) {
  run_failures_.emplace_back(run, host);
  queue_.push(now, engine::EventClass::run_failure, run_failures_.size() - 1);
}

void Simulation::host_lost(cluster::HostId host, engine::Time now) {
  pending_failures_.push_back(FailureEvent{.at = now, .host = host, .until_back = true});
  queue_.push(now, engine::EventClass::failure, pending_failures_.size() - 1);
}

void Simulation::host_back(cluster::HostId host, engine::Time now) {
  auto it = lost_down_.find(host);
  if (it == lost_down_.end()) return;
  repairs_.emplace_back(host, it->second);
  lost_down_.erase(it);
  queue_.push(now, engine::EventClass::repair, repairs_.size() - 1);
}

workload::JobId Simulation::submit(const SubmittedJob& job, engine::Time now) {
  workload::JobSpec spec = job.spec;
  auto& strings = source_.strings();
  spec.trace_id = strings.intern(job.name);
  spec.user = strings.intern(job.user);
  spec.gpu_request = strings.intern(job.model);
  return arrive_from_outside(std::move(spec), now);
}

workload::JobId Simulation::arrive_from_outside(workload::JobSpec spec, engine::Time now) {
  spec.trace_number = kSubmittedFromOutside;
  spec.line = 0;
  spec.id = static_cast<workload::JobId>(jobs_.size());
  spec.submit = now;
  jobs_.push_back(spec);
  take_slot(spec.id);
  outside_jobs_.insert(spec.id);
  queue_.push(now, engine::EventClass::arrival, spec.id);
  return spec.id;
}

bool Simulation::kill(workload::JobId id, engine::Time now) {
  if (!active(id) || outside_jobs_.count(id)) return false;  // ended, or not arrived yet
  auto& rt = runtime(id);
  auto& life = rt.life;
  if (life.state == sched::JobState::finished || life.state == sched::JobState::failed ||
      life.state == sched::JobState::dropped)
    return false;
  rt.killed = true;
  // A pass at this instant: freed GPUs go to others at once.
  queue_.push(now, engine::EventClass::wake, 0);
  if (life.state == sched::JobState::stopping) return true;  // it ends when its save does
  scheduler_.job_stopped(id, sched::StopCause::killed);
  if (!rt.runs.empty()) {
    stop_job(id, now, sched::StopCause::killed, sched::kNoJob, false, 0, 0);
    return true;
  }
  // Waiting, never started in this attempt: it leaves the queue.
  life.state = sched::JobState::failed;
  scheduler_.forget(id, now);
  job_left(id, now);
  metrics::LifeEvent ev{metrics::LifeStep::fail, now, &jobs_[id], &life, sched::StopCause::killed};
  observer_.on_life(ev);
  release_slot(id);
  return true;
}

void Simulation::describe_job(workload::JobId id, RunView::Job& j) const {
  const auto& spec = jobs_[id];
  const auto& rt = runtime(id);
  j.id = id;
  j.name = spec.trace_id == workload::kNoLabel ? "" : source_.strings().str(spec.trace_id);
  j.user = spec.user == workload::kNoLabel ? "" : source_.strings().str(spec.user);
  j.state = rt.life.state;
  j.submit = spec.submit;
  j.tasks = spec.tasks;
  j.gpus_per_task = spec.gpus_per_task;
  j.preemptions = rt.life.preemptions;
  j.failures = rt.life.failures;
  j.restarts = rt.life.restarts;
  j.work_total_s = rt.life.work_total / 1e6;
  for (RunId r : rt.runs) {
    if (!j.placement.empty()) j.placement += ' ';
    j.placement += runs_.at(r).placement.describe();
  }
}

std::string Simulation::lacking(const sched::PendingJob& p) const {
  const auto allowed = scheduler_.allowed_models(p);
  std::uint64_t usable = 0;
  const auto g = static_cast<std::uint16_t>(p.spec->fractional() ? 1 : p.spec->gpus_per_task);
  for (cluster::ModelId m = 0; m < topo_.catalog().size(); ++m)
    if (allowed >> m & 1) usable += alloc_.usable_gpus(m, g);
  return fmt::format("needs {} more task(s) of {} GPU(s) on one host; {} free GPUs are on hosts with room for one "
                     "such task, {} free in all",
                     p.tasks_left, p.spec->gpus_per_task, usable, alloc_.free_gpus());
}

std::string Simulation::why_waiting(const sched::PendingJob& p, std::uint32_t position, workload::JobId head) const {
  if (position > 1) return fmt::format("waits behind job {} (position {} in the queue)", head, position);
  return "first in the queue: " + lacking(p);
}

std::string Simulation::waiting_reason(workload::JobId id) const {
  std::vector<const sched::PendingJob*> waiting;
  scheduler_.queue_order(waiting, std::numeric_limits<std::size_t>::max());
  for (std::size_t i = 0; i < waiting.size(); ++i) {
    if (waiting[i]->id() != id) continue;
    const auto position = static_cast<std::uint32_t>(i + 1);
    // The part that refused it in the last pass, when that pass got as far as this job.
    if (const auto& r = scheduler_.watched_refusal())
      return fmt::format("{}: {} (position {} in the queue)", r->part,
                         r->reason.empty() ? lacking(*waiting[i]) : r->reason, position);
    return why_waiting(*waiting[i], position, waiting.front()->id());
  }
  return {};
}

void Simulation::inspect(RunView& out, std::size_t limit, bool queue_only) const {
  const engine::Time now = out.now;
  out.hosts.clear();
  for (cluster::HostId h = 0; h < topo_.hosts().size(); ++h)
    out.hosts.push_back({topo_.host(h).gpus, alloc_.whole_free(h), alloc_.down(h)});
  out.services.assign(service_state_.size(), {});
  for (const auto& [name, group] : service_names_) {
    const auto& st = service_state_.at(group);
    auto& s = out.services[st.order];
    s.name = name;
    s.instances = static_cast<std::uint32_t>(st.wanted.size());
    for (auto id : st.wanted) s.running += runtime(id).life.state == sched::JobState::running;
  }
  out.active_jobs = active_jobs_;
  out.running_jobs = running_jobs_;
  out.pending_jobs = scheduler_.pending();
  out.jobs.clear();
  std::vector<const sched::PendingJob*> waiting;
  scheduler_.queue_order(waiting, queue_only ? limit : std::numeric_limits<std::size_t>::max());
  std::unordered_map<workload::JobId, std::uint32_t> position;
  for (std::size_t i = 0; i < waiting.size(); ++i) position[waiting[i]->id()] = static_cast<std::uint32_t>(i + 1);
  auto reason = [&](const sched::PendingJob& p, std::uint32_t pos) {
    return why_waiting(p, pos, waiting.front()->id());
  };
  auto add = [&](workload::JobId id) {
    RunView::Job j;
    describe_job(id, j);
    j.work_done_s = work_done(id, now) / 1e6;
    if (auto it = position.find(id); it != position.end()) {
      j.queue_position = it->second;
      j.waiting = reason(*waiting[it->second - 1], it->second);
    }
    out.jobs.push_back(std::move(j));
  };
  if (queue_only) {
    for (const auto* p : waiting) add(p->id());
    return;
  }
  for (workload::JobId id = 0; id < jobs_.size() && out.jobs.size() < limit; ++id)
    if (active(id) && !outside_jobs_.count(id)) add(id);
}

// --- the loop ----------------------------------------------------------------------------

metrics::InstantState Simulation::snapshot(engine::Time now) const {
  metrics::InstantState s;
  s.now = now;
  s.used_milli = alloc_.used_milli();
  s.free_gpus = alloc_.free_gpus();
  s.down_gpus = alloc_.down_gpus();
  s.running_jobs = running_jobs_;
  s.pending_jobs = scheduler_.pending();
  s.used_cpu_milli = alloc_.used_cpu_milli();
  s.pools = pool_book_.get();
  if (const auto* head = scheduler_.head(); head && head->spec->needs_gpu()) {
    // Free GPUs the first pending job cannot use: on hosts too full for one of its tasks
    // (GPUs, CPUs or memory), or of models it may not use.
    std::uint64_t usable = 0;
    cluster::ModelMask allowed = scheduler_.allowed_models(*head);
    auto g = static_cast<std::uint16_t>(head->spec->fractional() ? 1 : head->spec->gpus_per_task);
    for (cluster::ModelId m = 0; m < topo_.catalog().size(); ++m)
      if (allowed >> m & 1) usable += alloc_.usable_gpus(m, g, head->need());
    s.fragmented_gpus = s.free_gpus - std::min(usable, s.free_gpus);
  }
  return s;
}

void Simulation::use_pools(const pools::PoolsConfig& config, std::uint64_t seed) {
  const pools::Amounts capacity{static_cast<double>(topo_.total_gpus()),
                                static_cast<double>(topo_.total_cpu_milli()) / 1000.0,
                                static_cast<double>(topo_.total_mem_mib()) / 1024.0};
  pool_book_ = std::make_unique<pools::PoolBook>(config, capacity);
  pool_assigner_ = std::make_unique<pools::PoolAssigner>(config, seed);
  scheduler_.use_pools(pool_book_.get(), config.period);
  pools_report_at_ = config.report_at;
}

SimulationStats Simulation::run() {
  pull_next_job();
  pull_next_failure();
  for (;;) {
    // An emulation's clock waits for the wall clock and may queue events from outside first.
    // What arrived may have queued nothing for its instant (a task reported running): then the
    // next queued event is still in the future, and the clock waits again.
    if (clock_) {
      const engine::Time at = clock_->advance(queue_.empty() ? engine::kTimeMax : queue_.top().time, *this);
      if (at != engine::kTimeMax && (queue_.empty() || queue_.top().time > at)) continue;
    }
    if (queue_.empty()) break;
    const engine::Time now = queue_.top().time;
    // The clock never goes back: an event queued for an instant already handled is a bug.
    if (stats_.instants > 0 && now < stats_.end_time)
      throw std::logic_error(fmt::format("event at {} s queued after the instant {} s was handled",
                                         engine::to_seconds(now), engine::to_seconds(stats_.end_time)));
    while (!queue_.empty() && queue_.top().time == now) {
      handle(queue_.pop());
      ++stats_.events;
    }
    if (!ended_parents_.empty()) release_held(now);
    if (!live_services_.empty() && source_done_ && active_batch_ == 0) retire_with_the_run(now);
    scheduler_.schedule(now, alloc_, starts_, stops_);
    apply_stops(now);
    start_decided(now);
    scheduler_.starts_applied(now);
    scheduler_.take_timers(timers_);
    for (const auto& t : timers_) queue_.push(t.at, engine::EventClass::timer, t.job, t.version);
    timers_.clear();
    executor_->settle(now);
    if (pools_report_at_ && now >= *pools_report_at_) {
      pools_report_ = pools::format_pools_report(*pool_book_, now);
      pools_report_at_.reset();
    }
    observer_.on_instant(snapshot(now));
    ++stats_.instants;
    stats_.end_time = now;
    // Failures and repairs go on forever; the run ends with its last job.
    if (source_done_ && active_jobs_ == 0) break;
  }
  // Only a policy that never starts them leaves jobs waiting with nothing left to happen (the
  // parts drop a job that could never run at submit): an external policy's bug, most likely.
  if (const auto waiting = scheduler_.pending(); waiting > 0)
    notice(fmt::format("{} job(s) still waited when nothing more could happen (the scheduler never started them); "
                       "jobs.csv shows them without a start",
                       waiting));
  long_running_stats_.finish(stats_.end_time);
  observer_.on_finish(stats_.end_time);
  return stats_;
}

}  // namespace schedlab::sim
