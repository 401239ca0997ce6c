// Which run event changes which services and cron figure.
#include "metrics/long_running_observer.h"

#include "util/text.h"

namespace schedlab::metrics {

LongRunningObserver::LongRunningObserver(const workload::LongRunningWork& planned,
                                         const workload::StringPool& strings)
    : strings_(strings) {
  for (const auto& s : planned.services) planned_services_[util::printable(s.name)] = stats_.add_service(s.name);
  for (const auto& c : planned.cron) planned_cron_[util::printable(c.name)] = stats_.add_cron(c.name);
}

namespace {
// The entry of `group`: bound already, a planned one of that name, or a new one.
template <typename Add>
const std::size_t* entry_of(std::unordered_map<workload::Label, std::size_t>& bound,
                            const std::unordered_map<std::string, std::size_t>& planned, workload::Label group,
                            const workload::StringPool& strings, Add add) {
  if (group == workload::kNoLabel) return nullptr;
  auto it = bound.find(group);
  if (it == bound.end()) {
    const std::string name(strings.str(group));
    auto p = planned.find(name);
    it = bound.emplace(group, p != planned.end() ? p->second : add(name)).first;
  }
  return &it->second;
}
}  // namespace

const std::size_t* LongRunningObserver::service_of(const workload::JobSpec& job) {
  if (job.kind != workload::JobKind::service) return nullptr;
  return entry_of(service_of_, planned_services_, job.group, strings_,
                  [this](const std::string& name) { return stats_.add_service(name); });
}

const std::size_t* LongRunningObserver::cron_of(const workload::JobSpec& job) {
  if (job.kind != workload::JobKind::cron) return nullptr;
  return entry_of(cron_of_, planned_cron_, job.group, strings_,
                  [this](const std::string& name) { return stats_.add_cron(name); });
}

void LongRunningObserver::on_submit(const workload::JobSpec& job, engine::Time now) {
  if (const auto* s = service_of(job)) stats_.wanted(*s, now, +1);
  cron_of(job);  // registers a trace's entry at its first occurrence
}

void LongRunningObserver::on_drop(const workload::JobSpec& job, engine::Time now, const std::string& /*reason*/) {
  if (const auto* s = service_of(job)) {
    // Wanted for an instant: it still counts towards the most instances wanted.
    stats_.wanted(*s, now, +1);
    stats_.wanted(*s, now, -1);
  }
  if (const auto* c = cron_of(job)) {
    if (job.id == skipping_)
      skipping_ = sched::kNoJob;
    else
      stats_.dropped(*c);
  }
}

void LongRunningObserver::on_life(const LifeEvent& e) {
  const auto& job = *e.job;
  if (const auto* s = service_of(job)) {
    switch (e.step) {
      case LifeStep::start:
      case LifeStep::restart:
        stats_.up(*s, e.now, +1);
        if (e.step == LifeStep::restart) stats_.service_restarted(*s);
        break;
      case LifeStep::stop:
        // A job already stopping (a failure cut its save short) went down at its first stop.
        if (e.life->state == sched::JobState::stopping) break;
        stats_.up(*s, e.now, -1);
        if (!sched::is_preemption(e.cause) && e.cause != sched::StopCause::killed) stats_.service_failed(*s);
        break;
      case LifeStep::finish:
      case LifeStep::fail:
        stats_.wanted(*s, e.now, -1);
        break;
    }
  } else if (const auto* c = cron_of(job); c && e.step == LifeStep::start) {
    stats_.started(*c, e.now - job.submit);
  }
}

void LongRunningObserver::on_long_running(const LongRunningEvent& e) {
  switch (e.step) {
    case LongRunningStep::cron_occurrence:
      if (const auto* c = cron_of(*e.job)) stats_.occurrence(*c, e.overlapping);
      break;
    case LongRunningStep::cron_skipped:
      if (const auto* c = cron_of(*e.job)) {
        stats_.skipped(*c);
        skipping_ = e.job->id;
      }
      break;
    case LongRunningStep::running_instance_retired:
      if (const auto* s = service_of(*e.job)) stats_.up(*s, e.now, -1);
      break;
  }
}

void LongRunningObserver::on_finish(engine::Time now) { stats_.finish(now); }

}  // namespace schedlab::metrics
