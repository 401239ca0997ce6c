// Events from outside, in an emulation (the clock delivers them in the loop's thread): runs
// that ended or failed, hosts lost and back, jobs submitted or killed through the API, and the
// API's view of the run. Each is queued as an event of the instant it arrived at, or applied
// at once where the loop's state allows.
#include "sim/simulation.h"

namespace schedlab::sim {

void Simulation::run_ended(RunId run, engine::Time now) { queue_.push(now, engine::EventClass::completion, run); }

void Simulation::run_failed(RunId run, cluster::HostId host, engine::Time now) {
  run_failures_.emplace_back(run, host);
  queue_.push(now, engine::EventClass::run_failure, run_failures_.size() - 1);
}

void Simulation::host_lost(cluster::HostId host, engine::Time now) {
  pending_failures_.push_back(lifecycle::FailureEvent{.at = now, .host = host, .until_back = true});
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

std::optional<std::string> Simulation::never_runs(const SubmittedJob& job) {
  workload::JobSpec spec = job.spec;
  spec.gpu_request = source_.strings().intern(job.model);  // as submit() will
  return scheduler_.never_runs(spec, requests_.of(spec));
}

workload::JobId Simulation::arrive_from_outside(workload::JobSpec spec, engine::Time now) {
  spec.trace_number = kSubmittedFromOutside;
  spec.line = 0;
  spec.submit = now;
  const auto id = jobs_.add(std::move(spec));
  outside_jobs_.insert(id);
  queue_.push(now, engine::EventClass::arrival, id);
  return id;
}

bool Simulation::kill(workload::JobId id, engine::Time now) {
  if (!jobs_.active(id) || outside_jobs_.count(id)) return false;  // ended, or not arrived yet
  auto& rt = jobs_.record(id);
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
  job_left(id);
  metrics::LifeEvent ev{metrics::LifeStep::fail, now, &jobs_.spec(id), &life, sched::StopCause::killed};
  observer_.on_life(ev);
  jobs_.release(id);
  return true;
}

void Simulation::inspect(RunView& out, std::size_t limit, bool queue_only) const {
  inspector_.inspect(out, limit, queue_only);
  out.preemptions = stats_.preemptions;
  out.failures = stats_.failures;
  describe_services(out);
}

}  // namespace schedlab::sim
