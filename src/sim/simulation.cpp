// The simulate loop: all events of one instant, then one scheduling pass.
#include "sim/simulation.h"

#include <fmt/format.h>

#include "sim/sim_executor.h"
#include "util/error.h"
#include "util/suggest.h"

namespace schedlab::sim {

Simulation::Simulation(const cluster::Topology& topo, const sched::SchedulerConfig& scheduler,
                       workload::JobSource& source, perf::PerfModel& perf, metrics::RunObserver& observer,
                       std::string trace_name)
    : topo_(topo),
      source_(source),
      observer_(observer),
      trace_name_(std::move(trace_name)),
      alloc_(topo),
      scheduler_(scheduler, sched::builtin_parts(), topo),
      executor_(std::make_unique<SimExecutor>(queue_, perf, topo)) {}

cluster::ModelMask Simulation::requested_models(const workload::JobSpec& job) {
  const auto& catalog = topo_.catalog();
  auto key = job.gpu_request;
  cluster::ModelMask mask;
  if (auto it = request_cache_.find(key); it != request_cache_.end()) {
    mask = it->second;
  } else {
    const std::string& text = source_.strings().str(key);
    if (text.empty()) {
      mask = catalog.all();
    } else {
      mask = 0;
      std::size_t start = 0;
      while (start <= text.size()) {
        std::size_t bar = text.find('|', start);
        std::string name = text.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
        auto id = catalog.find(name);
        if (!id)
          throw InputError(trace_name_, job.line, "gpu_model",
                           unknown_name_message("GPU model", name, catalog.names()) +
                               " (add it to configs/gpus.yaml)");
        mask |= cluster::ModelMask{1} << *id;
        if (bar == std::string::npos) break;
        start = bar + 1;
      }
    }
    request_cache_.emplace(key, mask);
  }
  if (job.min_generation > 0) {
    for (cluster::ModelId m = 0; m < catalog.size(); ++m)
      if (catalog.model(m).generation < job.min_generation) mask &= ~(cluster::ModelMask{1} << m);
  }
  return mask;
}

bool Simulation::pull_next_job() {
  workload::JobSpec spec;
  if (!source_.next(spec)) return false;
  spec.id = static_cast<workload::JobId>(jobs_.size());
  jobs_.push_back(spec);
  job_state_.push_back({});
  queue_.push(spec.submit, engine::EventClass::arrival, spec.id);
  return true;
}

void Simulation::handle(const engine::Event& e) {
  switch (e.cls) {
    case engine::EventClass::arrival: {
      const auto& job = jobs_[e.subject];
      ++stats_.jobs;
      auto why = scheduler_.submit(job, requested_models(job), e.time);
      if (why)
        observer_.on_drop(job, e.time, *why);
      else
        observer_.on_submit(job, e.time);
      pull_next_job();  // the next arrival, possibly at this same instant
      break;
    }
    case engine::EventClass::completion: {
      if (!executor_->is_current(e)) break;  // superseded by a speed change
      auto it = runs_.find(e.subject);
      executor_->finished(e.subject, e.time);
      Run run = std::move(it->second);
      runs_.erase(it);
      alloc_.release(run.placement);
      auto& st = job_state_[run.job];
      --st.runs_active;
      bool done = st.runs_active == 0 && st.fully_started;
      if (done) {
        --running_jobs_;
        scheduler_.job_ended(run.job);
      }
      observer_.on_run_end(jobs_[run.job], run.placement, run.start, e.time, done);
      break;
    }
    default:
      break;
  }
}

void Simulation::start_decided(engine::Time now) {
  for (auto& d : starts_) {
    auto& st = job_state_[d.job];
    // The job's first start only: a job whose earlier runs all ended while tasks still
    // waited started long ago, and never stopped counting as running.
    bool first = !st.started;
    st.started = true;
    if (first) ++running_jobs_;
    if (d.job_fully_started) st.fully_started = true;
    ++st.runs_active;
    RunId id = next_run_++;
    Run run{d.job, now, cluster::Placement{std::move(d.slots)}};
    observer_.on_start(jobs_[d.job], run.placement, now, first);
    executor_->start(id, jobs_[d.job], run.placement, now);
    runs_.emplace(id, std::move(run));
  }
  starts_.clear();
}

metrics::InstantState Simulation::snapshot(engine::Time now) const {
  metrics::InstantState s;
  s.now = now;
  s.used_milli = alloc_.used_milli();
  s.free_gpus = alloc_.free_gpus();
  s.running_jobs = running_jobs_;
  s.pending_jobs = scheduler_.pending();
  if (const auto* head = scheduler_.head()) {
    // Free GPUs the first pending job cannot use: on hosts too full for one of its tasks,
    // or of models it may not use.
    std::uint64_t usable = 0;
    cluster::ModelMask allowed = scheduler_.allowed_models(*head);
    auto g = static_cast<std::uint16_t>(head->spec->fractional() ? 1 : head->spec->gpus_per_task);
    for (cluster::ModelId m = 0; m < topo_.catalog().size(); ++m)
      if (allowed >> m & 1) usable += alloc_.usable_gpus(m, g);
    s.fragmented_gpus = s.free_gpus - std::min(usable, s.free_gpus);
  }
  return s;
}

SimulationStats Simulation::run() {
  pull_next_job();
  while (!queue_.empty()) {
    const engine::Time now = queue_.top().time;
    while (!queue_.empty() && queue_.top().time == now) {
      handle(queue_.pop());
      ++stats_.events;
    }
    scheduler_.schedule(now, alloc_, starts_);
    start_decided(now);
    executor_->settle(now);
    observer_.on_instant(snapshot(now));
    ++stats_.instants;
    stats_.end_time = now;
  }
  observer_.on_finish(stats_.end_time);
  return stats_;
}

}  // namespace schedlab::sim
