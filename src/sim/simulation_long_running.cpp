// Services and cron occurrences in the run: a service instance lives over its span (or as long
// as the run's other work), is relaunched after a backoff when it fails, and is retired when no
// longer wanted; a cron occurrence may overlap its predecessor or be skipped for it, and waits
// for its parents' latest occurrences (skipped when one of them failed).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/simulation.h"
#include "sim/run_view.h"
#include "util/checked.h"

namespace schedlab::sim {

void Simulation::use_long_running(const workload::LongRunningWork& work) {
  auto& strings = source_.strings();
  for (const auto& s : work.services) {
    auto& state = add_service_state(strings.intern(s.name), s.name, s);
    state.planned = true;
    // Instances the API adds are named after those the scenario plans.
    for (const auto& span : workload::instance_spans(s)) state.next_index = std::max(state.next_index, span.index + 1);
  }
  for (const auto& c : work.cron) {
    const auto group = strings.intern(c.name);
    CronEntry e;
    for (const auto& p : c.parents) e.parents.push_back(strings.intern(p));
    e.skip_overlap = c.skip_overlap;
    cron_entries_[group] = std::move(e);
    long_running_stats_.add_cron(group, c.name);
  }
}

void Simulation::note_group(const workload::JobSpec& job) {
  if (job.group == workload::kNoLabel) return;
  const std::string name(source_.strings().str(job.group));
  if (job.kind == workload::JobKind::service && !service_state_.count(job.group)) {
    add_service_state(job.group, name, workload::ServiceSpec{});
  } else if (job.kind == workload::JobKind::cron && !cron_entries_.count(job.group)) {
    cron_entries_[job.group] = {};
    long_running_stats_.add_cron(job.group, name);
  }
}

Simulation::ServiceState& Simulation::add_service_state(workload::Label group, const std::string& name,
                                                        const workload::ServiceSpec& rules) {
  auto& state = service_state_[group];
  state.backoff = rules.backoff;
  state.max_backoff = rules.max_backoff;
  state.factor = rules.backoff_factor;
  state.order = service_names_.size();
  service_names_[name] = group;
  long_running_stats_.add_service(group, name);
  return state;
}

void Simulation::service_arrived(const workload::JobSpec& job) {
  auto it = service_state_.find(job.group);
  if (it == service_state_.end()) return;  // a trace's service row without a group: not scalable
  auto& state = it->second;
  if (!state.instance) state.instance = job;
  state.wanted.insert(job.id);
  // A trace names its instances ID.0, ID.1, ...: the API's continue after those seen.
  if (!state.planned && job.trace_number != kSubmittedFromOutside) ++state.next_index;
}

std::optional<ServiceScaled> Simulation::scale_service(const std::string& name, std::uint32_t instances,
                                                       engine::Time now) {
  auto named = service_names_.find(name);
  if (named == service_names_.end()) return std::nullopt;
  auto& state = service_state_.at(named->second);
  ServiceScaled out;
  out.before = static_cast<std::uint32_t>(state.wanted.size());
  out.after = instances;
  if (instances > out.before && !state.instance) {
    out.not_started = true;
    out.after = out.before;
    return out;
  }
  // The newest first, as Marathon kills the most recently started tasks on a scale down.
  while (state.wanted.size() > instances) retire(*state.wanted.rbegin(), now);
  for (std::uint32_t i = out.before; i < instances; ++i) {
    workload::JobSpec spec = *state.instance;
    spec.trace_id = source_.strings().intern(fmt::format("{}.{}", name, state.next_index++));
    spec.duration = engine::kTimeMax;  // until scaled down, or the run's other work ends
    arrive_from_outside(spec, now);
  }
  queue_.push(now, engine::EventClass::wake, 0);  // freed GPUs go to others at this instant
  return out;
}

void Simulation::enter_scheduler(workload::JobId id, engine::Time now, bool announce) {
  const auto& job = jobs_.spec(id);
  auto why = scheduler_.submit(job, requests_.of(job), now);
  if (why) {
    jobs_.record(id).life.state = sched::JobState::dropped;
    if (job.kind == workload::JobKind::cron) long_running_stats_.dropped(job.group);
    job_left(id, now);
    observer_.on_drop(job, job.submit, *why);
    jobs_.release(id);
  } else if (announce) {
    observer_.on_submit(job, now);
  }
}

void Simulation::skip(workload::JobId id, engine::Time now, const std::string& reason) {
  const auto& job = jobs_.spec(id);
  jobs_.record(id).life.state = sched::JobState::dropped;
  waiting_for_.erase(id);
  long_running_stats_.skipped(job.group);
  job_left(id, now);
  observer_.on_drop(job, job.submit, reason);
  jobs_.release(id);
}

Simulation::Arrival Simulation::cron_arrives(workload::JobId id, engine::Time now) {
  const auto& job = jobs_.spec(id);
  auto it = cron_entries_.find(job.group);
  if (it == cron_entries_.end()) return Arrival::go;
  auto& entry = it->second;
  const auto& strings = source_.strings();
  const bool overlapping = entry.last != sched::kNoJob && jobs_.active(entry.last);
  long_running_stats_.occurrence(job.group, overlapping);
  if (overlapping && entry.skip_overlap) {
    skip(id, now, fmt::format("skipped: the previous occurrence ({}) has not ended", strings.str(jobs_.spec(entry.last).trace_id)));
    return Arrival::skipped;
  }
  entry.last = id;
  entry.last_failed = false;
  std::uint32_t waits = 0;
  for (auto parent : entry.parents) {
    const auto& p = cron_entries_.at(parent);
    if (p.last == sched::kNoJob) continue;  // no occurrence yet: nothing to wait for
    if (jobs_.active(p.last)) {
      held_by_[p.last].push_back(id);
      ++waits;
    } else if (p.last_failed) {
      skip(id, now, fmt::format("skipped: parent occurrence {} did not finish", strings.str(jobs_.spec(p.last).trace_id)));
      return Arrival::skipped;
    }
  }
  if (waits == 0) return Arrival::go;
  waiting_for_[id] = waits;
  return Arrival::held;
}

void Simulation::cron_ended(workload::JobId id) {
  const auto& job = jobs_.spec(id);
  auto it = cron_entries_.find(job.group);
  if (it == cron_entries_.end()) return;
  const bool failed = jobs_.record(id).life.state != sched::JobState::finished;
  if (it->second.last == id) it->second.last_failed = failed;
  if (held_by_.count(id)) ended_parents_.push_back({id, failed});
}

void Simulation::release_held(engine::Time now) {
  // In id order: occurrences enter the scheduler as they would have arrived.
  std::vector<std::pair<workload::JobId, bool>> parents;
  parents.swap(ended_parents_);
  std::sort(parents.begin(), parents.end());
  struct Outcome {
    workload::JobId child;
    workload::JobId failed_parent;  // kNoJob: the parent finished
  };
  std::vector<Outcome> outcomes;
  for (const auto& [parent, failed] : parents) {
    auto h = held_by_.find(parent);
    if (h == held_by_.end()) continue;
    for (auto child : h->second) outcomes.push_back({child, failed ? parent : sched::kNoJob});
    held_by_.erase(h);
  }
  std::stable_sort(outcomes.begin(), outcomes.end(), [](const Outcome& a, const Outcome& b) { return a.child < b.child; });
  for (const auto& o : outcomes) {
    if (!jobs_.active(o.child) || !waiting_for_.count(o.child)) continue;  // skipped already
    if (o.failed_parent != sched::kNoJob) {
      skip(o.child, now,
           fmt::format("skipped: parent occurrence {} did not finish",
                       source_.strings().str(jobs_.spec(o.failed_parent).trace_id)));
      continue;
    }
    if (--waiting_for_[o.child] > 0) continue;
    waiting_for_.erase(o.child);
    enter_scheduler(o.child, now, false);
  }
  // A skip above may have ended a parent of others at this instant.
  if (!ended_parents_.empty()) release_held(now);
}

engine::Time Simulation::backoff(const workload::JobSpec& job, std::uint32_t failures) const {
  auto it = service_state_.find(job.group);
  if (it == service_state_.end()) return 0;
  const auto& r = it->second;
  const double delay =
      static_cast<double>(r.backoff) * std::pow(r.factor, static_cast<double>(std::max<std::uint32_t>(failures, 1) - 1));
  return std::min(r.max_backoff, util::time_from_double_clamped(delay));
}

void Simulation::retire(workload::JobId id, engine::Time now) {
  if (!jobs_.active(id)) return;
  if (auto s = service_state_.find(jobs_.spec(id).group); s != service_state_.end()) s->second.wanted.erase(id);
  auto& rt = jobs_.record(id);
  switch (rt.life.state) {
    case sched::JobState::stopping:
      rt.retired = true;  // it ends when its GPUs are free (finish_stop)
      return;
    case sched::JobState::running:
      scheduler_.job_ended(id, now);
      // The work its runs report is not kept: an instance has none to finish (end_retired).
      for (RunId r : rt.runs) executor_->stop(r, now, false);
      long_running_stats_.up(jobs_.spec(id).group, now, -1);
      release_runs(id, now, true, true);
      break;
    case sched::JobState::pending:
      scheduler_.forget(id, now);
      break;
    default:
      return;
  }
  end_retired(id, now);
}

void Simulation::end_retired(workload::JobId id, engine::Time now) {
  auto& life = jobs_.record(id).life;
  life.state = sched::JobState::finished;
  // An instance has no work to finish: what it did is all there was.
  life.work_total = life.work_done;
  job_left(id, now);
  observer_.on_life({metrics::LifeStep::finish, now, &jobs_.spec(id), &life});
  jobs_.release(id);
}

void Simulation::describe_services(RunView& out) const {
  out.services.assign(service_state_.size(), {});
  for (const auto& [name, group] : service_names_) {
    const auto& st = service_state_.at(group);
    auto& s = out.services[st.order];
    s.name = name;
    s.instances = static_cast<std::uint32_t>(st.wanted.size());
    for (auto id : st.wanted) s.running += jobs_.record(id).life.state == sched::JobState::running;
  }
}

void Simulation::retire_with_the_run(engine::Time now) {
  const std::vector<workload::JobId> live(live_services_.begin(), live_services_.end());
  for (auto id : live) retire(id, now);
}

}  // namespace schedlab::sim
