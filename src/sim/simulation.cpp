// The simulate loop: all events of one instant (ends, saves that end, repairs, failures,
// arrivals, key timers), then one scheduling pass, then its stops, then its starts.
#include "sim/simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "sim/sim_executor.h"
#include "sim/stop_accounting.h"
#include "util/checked.h"

namespace schedlab::sim {

Simulation::Simulation(const cluster::Topology& topo, const sched::SchedulerConfig& scheduler,
                       workload::JobSource& source, perf::PerfModel& perf, metrics::RunObserver& observer,
                       std::string trace_name, lifecycle::LifecycleConfig lifecycle, lifecycle::FailureSource* failures,
                       Driver driver, util::Notices* notices)
    : topo_(topo),
      source_(source),
      perf_(perf),
      observer_(observer),
      notices_(notices),
      trace_name_(std::move(trace_name)),
      lifecycle_(lifecycle),
      failures_(failures),
      alloc_(topo),
      requests_(topo.catalog(), source.strings(), trace_name_),
      own_executor_(driver.executor ? nullptr : std::make_unique<SimExecutor>(queue_, perf, topo)),
      executor_(driver.executor ? driver.executor : own_executor_.get()),
      clock_(driver.clock),
      jobs_(*executor_, lifecycle_),
      scheduler_(scheduler, sched::builtin_parts(), topo, &jobs_, &perf),
      inspector_(topo, alloc_, scheduler_, jobs_, source.strings(), outside_jobs_) {
  scheduler_.set_strings(&source.strings());
  perf.bind_workload(source.strings(), trace_name_);
  if (own_executor_ && scheduler_.adapts_batch()) static_cast<SimExecutor&>(*own_executor_).charge_goodput();
}

// --- arrivals and failures ---------------------------------------------------------------

bool Simulation::pull_next_job() {
  workload::JobSpec spec;
  if (!source_.next(spec)) {
    source_done_ = true;
    return false;
  }
  const auto id = jobs_.add(std::move(spec));
  queue_.push(jobs_.spec(id).submit, engine::EventClass::arrival, id);
  return true;
}

void Simulation::pull_next_failure() {
  lifecycle::FailureEvent f;
  if (!failures_ || !failures_->next(f)) return;
  pending_failures_.push_back(f);
  queue_.push(f.at, engine::EventClass::failure, pending_failures_.size() - 1);
}

void Simulation::job_left(workload::JobId id) {
  jobs_.left(id);
  const auto& job = jobs_.spec(id);
  if (job.kind == workload::JobKind::service) {
    live_services_.erase(id);
    if (auto s = service_state_.find(job.group); s != service_state_.end()) s->second.wanted.erase(id);
  } else {
    --active_batch_;
    if (job.kind == workload::JobKind::cron) cron_ended(id);
  }
}

void Simulation::arrive(workload::JobId id, engine::Time now) {
  const auto& job = jobs_.spec(id);
  auto& rt = jobs_.record(id);
  ++stats_.jobs;
  rt.life.work_total = static_cast<double>(job.duration);
  rt.life.pending_since = now;
  rt.ckpt = checkpoint_for(job, lifecycle_, perf_);
  if (job.min_gpus != 0) check_elastic(job);
  jobs_.arrived(id);
  if (pool_book_) pool_book_->assign(job.id, pool_assigner_->pool_of(job, source_.strings(), trace_name_));
  auto arrival = Arrival::go;
  if (job.kind != workload::JobKind::batch) note_group(job);
  if (job.kind == workload::JobKind::service) {
    // An instance makes no progress to speak of: it runs until it is no longer wanted,
    // and loses nothing when it stops (a service keeps no state of its own here).
    rt.ckpt = {};
    rt.life.work_total = static_cast<double>(engine::kTimeMax);
    service_arrived(job);
    if (job.duration == engine::kTimeMax)
      live_services_.insert(job.id);
    else
      queue_.push(util::add_time(now, job.duration), engine::EventClass::retire, job.id);
  } else {
    ++active_batch_;
    if (job.kind == workload::JobKind::cron) arrival = cron_arrives(job.id, now);
  }
  if (arrival == Arrival::go) enter_scheduler(job.id, now, true);
  if (arrival == Arrival::held) observer_.on_submit(job, now);
  // The next arrival, possibly at this same instant (a job from outside pulls none).
  if (!outside_jobs_.erase(job.id)) pull_next_job();
}

void Simulation::complete(RunId id, engine::Time now) {
  executor_->finished(id, now);
  const Run run = jobs_.take_run(id);
  alloc_.release(run.placement);
  auto& rt = jobs_.record(run.job);
  auto& life = rt.life;
  std::erase(rt.runs, id);
  const auto milli = run.placement.used_milli();
  jobs_.hold_changed(run.job, -static_cast<std::int64_t>(milli));
  rt.held_gpus -= run.placement.gpus();
  life.attained_gpu_us += static_cast<double>(milli) / 1000.0 * static_cast<double>(now - run.start);
  const bool done = rt.runs.empty() && rt.fully_started;
  if (done) {
    life.attained += now - life.run_start;
    life.run_start = -1;
    life.work_done = life.work_total;
    life.state = sched::JobState::finished;
    jobs_.attempt_ended();
    scheduler_.job_ended(run.job, now);
    job_left(run.job);
  }
  const auto& job = jobs_.spec(run.job);
  observer_.on_run_end(job, run.placement, run.start, now, done);
  if (done) {
    observer_.on_life({metrics::LifeStep::finish, now, &job, &life});
    jobs_.release(run.job);
  }
}

void Simulation::handle(const engine::Event& e) {
  const auto job = static_cast<workload::JobId>(e.subject);
  switch (e.cls) {
    case engine::EventClass::arrival:
      arrive(job, e.time);
      break;
    case engine::EventClass::completion:
      if (executor_->is_current(e)) complete(e.subject, e.time);  // else superseded by a speed change, or stopped
      break;
    case engine::EventClass::stop_done: {
      if (!jobs_.active(job)) break;  // failed for good during its save
      const auto& rt = jobs_.record(job);
      if (rt.life.state != sched::JobState::stopping || rt.stop_version != e.version) break;
      finish_stop(job, e.time, true);
      break;
    }
    case engine::EventClass::repair: {
      const auto& [host, n] = repairs_[e.subject];
      alloc_.set_up(host, n);
      break;
    }
    case engine::EventClass::failure: {
      const lifecycle::FailureEvent f = pending_failures_[e.subject];
      fail_host(f, e.time);
      if (!f.until_back) pull_next_failure();
      break;
    }
    case engine::EventClass::run_failure: {
      const auto [run, host] = run_failures_[e.subject];
      if (!jobs_.has_run(run)) break;  // stopped or ended meanwhile
      const workload::JobId id = jobs_.run(run).job;
      if (jobs_.record(id).life.state == sched::JobState::stopping) break;  // its save ends it anyway
      ++stats_.failures;
      scheduler_.job_stopped(id, sched::StopCause::task_failed);
      stop_job(id, e.time, sched::StopCause::task_failed, sched::kNoJob, false, 0, host);
      break;
    }
    case engine::EventClass::timer:
      scheduler_.on_timer(job, e.version, e.time);
      break;
    case engine::EventClass::wake:
      break;
    case engine::EventClass::retire:
      retire(job, e.time);
      break;
    case engine::EventClass::requeue: {
      if (!jobs_.active(job)) break;
      auto& rt = jobs_.record(job);
      if (!rt.backing_off || rt.stop_version != e.version) break;
      rt.backing_off = false;
      rt.life.pending_since = e.time;
      scheduler_.requeue(job, e.time);
      break;
    }
  }
}

// --- starts and stops --------------------------------------------------------------------

void Simulation::start_decided(engine::Time now) {
  for (auto& d : starts_) {
    auto& rt = jobs_.record(d.job);
    auto& life = rt.life;
    const auto& job = jobs_.spec(d.job);
    const bool first_ever = !rt.started;
    rt.started = true;
    const bool attempt_first = !rt.attempt_started;
    if (attempt_first) {
      rt.attempt_started = true;
      life.state = sched::JobState::running;
      life.run_start = now;
      jobs_.attempt_started();
      if (!first_ever && !rt.resizing) ++life.restarts;
      // A restart from a checkpoint first restores it: GPUs held, no progress.
      rt.progress_from = util::add_time(
          now, rt.resizing ? resize_cost(rt) : !first_ever && life.work_done > 0 ? rt.ckpt.restore : 0);
    }
    if (d.job_fully_started) rt.fully_started = true;
    const engine::Time delay = std::max<engine::Time>(rt.progress_from - now, 0);
    const RunId id = jobs_.add_run({d.job, now, cluster::Placement{std::move(d.slots)}});
    const auto& placement = jobs_.run(id).placement;
    const auto milli = placement.used_milli();
    jobs_.hold_changed(d.job, static_cast<std::int64_t>(milli));
    rt.held_gpus += placement.gpus();
    life.lost_gpu_us += static_cast<double>(milli) / 1000.0 * static_cast<double>(delay);
    observer_.on_start(job, placement, now, first_ever);
    if (attempt_first) {
      metrics::LifeEvent ev{first_ever ? metrics::LifeStep::start : metrics::LifeStep::restart, now, &job, &life};
      ev.placement = &placement;
      if (rt.resizing) {
        ev.cause = sched::StopCause::resized;
        life.resize_lost_us += static_cast<double>(delay);
      }
      rt.resizing = false;
      observer_.on_life(ev);
    }
    executor_->start(id, job, placement, now, life.work_total - life.work_done, delay);
    rt.runs.push_back(id);
  }
  starts_.clear();
}

void Simulation::apply_stops(engine::Time now) {
  for (const auto& d : stops_) {
    if (d.cause == sched::StopCause::resized) {
      resize_stop(d.job, now);
      continue;
    }
    ++stats_.preemptions;
    stop_job(d.job, now, d.cause, d.by, d.released, d.released ? 0 : jobs_.stop_hold(d.job), 0);
  }
  stops_.clear();
}

void Simulation::stop_job(workload::JobId id, engine::Time now, sched::StopCause cause, workload::JobId by,
                          bool released, engine::Time hold, cluster::HostId host) {
  auto& rt = jobs_.record(id);
  auto& life = rt.life;
  const bool preempted = sched::is_preemption(cause);
  // The executor owns each run's progress: what its stops report is the work the job did.
  double least = std::numeric_limits<double>::infinity();
  for (RunId r : rt.runs) least = std::min(least, executor_->stop(r, now, preempted));
  const double done = job_progress(life, rt.fully_started, !rt.runs.empty(), least);
  const bool service = jobs_.spec(id).kind == workload::JobKind::service;
  const double gpus = static_cast<double>(life.held_milli) / 1000.0;
  const auto price = price_stop(rt.ckpt, keeps_all_work(preempted, service, lifecycle_, rt.ckpt), done, life.work_done,
                                rt.progress_from, now, gpus, hold);
  rt.wall_per_work = price.wall_per_work;
  life.lost_gpu_us += price.lost_gpu_us;
  life.lost_gpu_us += price.hold_gpu_us;
  if (preempted)
    ++life.preemptions;
  else if (cause != sched::StopCause::killed)
    ++life.failures;
  rt.last_stop_failed = !preempted && cause != sched::StopCause::killed;
  rt.restored_at_stop = life.work_done;
  life.work_done = price.saved;
  rt.done_at_stop = done;
  metrics::LifeEvent ev{metrics::LifeStep::stop, now, &jobs_.spec(id), &life, cause, by, host, price.lost / 1e6, hold};
  observer_.on_life(ev);
  if (hold > 0) {
    life.state = sched::JobState::stopping;
    rt.hold_until = util::add_time(now, hold);
    queue_.push(util::add_time(now, hold), engine::EventClass::stop_done, id, ++rt.stop_version);
    return;
  }
  finish_stop(id, now, !released);
}

void Simulation::release_runs(workload::JobId id, engine::Time now, bool free_gpus, bool ends) {
  auto& rt = jobs_.record(id);
  auto& life = rt.life;
  const auto& job = jobs_.spec(id);
  for (std::size_t i = 0; i < rt.runs.size(); ++i) {
    const Run run = jobs_.take_run(rt.runs[i]);
    if (free_gpus) alloc_.release(run.placement);
    life.attained_gpu_us +=
        static_cast<double>(run.placement.used_milli()) / 1000.0 * static_cast<double>(now - run.start);
    observer_.on_run_end(job, run.placement, run.start, now, ends && i + 1 == rt.runs.size());
  }
  rt.runs.clear();
  jobs_.hold_changed(id, -static_cast<std::int64_t>(life.held_milli));
  rt.held_gpus = 0;
  life.attained += now - life.run_start;
  life.run_start = -1;
  jobs_.attempt_ended();
  rt.attempt_started = false;
  rt.fully_started = false;
  ++rt.stop_version;
}

void Simulation::finish_stop(workload::JobId id, engine::Time now, bool free_gpus) {
  auto& rt = jobs_.record(id);
  auto& life = rt.life;
  const auto& job = jobs_.spec(id);
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
    job_left(id);
    metrics::LifeEvent ev{metrics::LifeStep::fail, now, &job, &life,
                          rt.killed ? sched::StopCause::killed : sched::StopCause::host_failed};
    ev.lost_work_s = life.work_done / 1e6;
    observer_.on_life(ev);
    jobs_.release(id);
    return;
  }
  life.state = sched::JobState::pending;
  life.pending_since = now;
  if (service && rt.last_stop_failed) {
    // Marathon relaunches a failed instance after a growing delay (its launch backoff).
    rt.backing_off = true;
    queue_.push(util::add_time(now, backoff(job, life.failures)), engine::EventClass::requeue, id, rt.stop_version);
    return;
  }
  scheduler_.requeue(id, now);
}

void Simulation::cut_save(workload::JobId id, engine::Time now, sched::StopCause cause, cluster::HostId host) {
  auto& rt = jobs_.record(id);
  const double gpus = static_cast<double>(rt.life.held_milli) / 1000.0;
  const auto cut = price_cut_save(rt.ckpt, rt.life.work_done, rt.done_at_stop, rt.restored_at_stop, rt.wall_per_work,
                                  gpus, rt.hold_until, now);
  rt.life.lost_gpu_us += cut.lost_gpu_us;
  rt.life.lost_gpu_us -= cut.unspent_gpu_us;
  rt.life.work_done = cut.kept;
  ++rt.life.failures;
  rt.last_stop_failed = true;
  // A second stop, by the failure: what the interrupted save would have kept is lost.
  metrics::LifeEvent ev{metrics::LifeStep::stop, now, &jobs_.spec(id), &rt.life, cause, sched::kNoJob, host,
                        cut.lost / 1e6};
  observer_.on_life(ev);
  finish_stop(id, now, true);
}

void Simulation::fail_host(const lifecycle::FailureEvent& f, engine::Time now) {
  const cluster::HostId h = f.host;
  const std::uint16_t gpus = topo_.host(h).gpus;
  const std::uint16_t already = alloc_.down(h);
  if (already >= gpus) return;  // the whole host is down already
  ++stats_.failures;
  const bool whole = f.gpu == lifecycle::kWholeHost;
  // Runs with tasks on the host, in start order (deterministic).
  std::vector<std::pair<RunId, HeldRun>> on_host;
  jobs_.runs().for_each([&](RunId id, const Run& run) {
    for (const auto& t : run.placement.tasks)
      if (t.host == h) {
        on_host.push_back({id, {run.job, &run.placement}});
        break;
      }
  });
  std::sort(on_host.begin(), on_host.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<HeldRun> held;
  for (const auto& r : on_host) held.push_back(r.second);
  const auto victims =
      failure_victims(held, h, whole, f.gpu, static_cast<std::uint32_t>(gpus - already), alloc_.shares(h));
  const auto cause = whole ? sched::StopCause::host_failed : sched::StopCause::gpu_failed;
  for (auto id : victims) {
    // A job saving its checkpoint has its save cut short.
    if (jobs_.record(id).life.state == sched::JobState::stopping) {
      cut_save(id, now, cause, h);
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
  queue_.push(util::add_time(now, std::max<engine::Time>(f.down_for, 1)), engine::EventClass::repair,
              repairs_.size() - 1);
}

// --- the loop ----------------------------------------------------------------------------

void Simulation::use_pools(const pools::PoolsConfig& config, std::uint64_t seed) {
  const pools::Amounts capacity{static_cast<double>(topo_.total_gpus()),
                                static_cast<double>(topo_.total_cpu_milli()) / 1000.0,
                                static_cast<double>(topo_.total_mem_mib()) / 1024.0};
  pool_book_ = std::make_unique<pools::PoolBook>(config, capacity);
  pool_assigner_ = std::make_unique<pools::PoolAssigner>(config, seed);
  scheduler_.use_pools(pool_book_.get(), config.period);
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
    observer_.on_instant(inspector_.snapshot(now, pool_book_.get()));
    ++stats_.instants;
    stats_.end_time = now;
    // Failures and repairs go on forever; the run ends with its last job.
    if (source_done_ && jobs_.active_jobs() == 0) break;
  }
  // Only a policy that never starts them leaves jobs waiting with nothing left to happen (the
  // parts drop a job that could never run at submit): an external policy's bug, most likely.
  if (const auto waiting = scheduler_.pending(); waiting > 0 && notices_)
    notices_->say(fmt::format("{} job(s) still waited when nothing more could happen (the scheduler never started them); "
                       "jobs.csv shows them without a start",
                       waiting));
  observer_.on_finish(stats_.end_time);
  return stats_;
}

}  // namespace schedlab::sim
