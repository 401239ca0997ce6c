// Run progress and completion events.
#include "sim/sim_executor.h"

#include <fmt/format.h>

#include <cmath>

#include "util/checked.h"
#include "util/error.h"

namespace schedlab::sim {

double SimExecutor::remaining_at(RunId run, const Progress& p, engine::Time now) const {
  engine::Time from = std::max(p.since, p.ready_at);
  if (now <= from || p.speed <= 0) return p.remaining;
  const double dt = static_cast<double>(now - from);
  if (const perf::StepProfile* c = charges_.find(run)) return c->drain(p.remaining, p.speed, dt);
  return std::max(p.remaining - dt * p.speed, 0.0);
}

void SimExecutor::schedule_end(RunId run, Progress& p, engine::Time now) {
  // Perf models keep their speeds within the sense range and name their files when they cannot;
  // a speed outside it here would make a run end at once or never, so it stops the run instead.
  if (!(std::isfinite(p.speed) && p.speed >= perf::kMinSpeed && p.speed <= perf::kMaxSpeed))
    throw util::InputError(fmt::format("perf model '{}' gave a run the speed {}, outside [{}, {}]", perf_->name(),
                                       p.speed, perf::kMinSpeed, perf::kMaxSpeed));
  // Round up: a run never ends before its work is done. A length beyond the clock saturates at
  // its end instead of wrapping, and so does the end time.
  const perf::StepProfile* c = charges_.find(run);
  const double exact = c ? c->time_to_drain(p.remaining, p.speed) : p.remaining / p.speed;
  const engine::Time length = util::time_from_double_clamped(std::ceil(exact - 1e-9));
  queue_->place(util::add_time(std::max(now, p.ready_at), length), engine::EventClass::completion, run, p.version);
}

void SimExecutor::start(RunId run, const workload::JobSpec& job, const cluster::Placement& placement, engine::Time now,
                        double work, engine::Time delay) {
  Progress p;
  p.work = work;
  p.remaining = work;
  p.since = now;
  p.ready_at = util::add_time(now, delay);
  // A batch job (a service or cron instance has no work to count percent of) whose model gives a
  // goodput ratio: its runs are charged it.
  if (charge_goodput_ && job.duration > 0 && job.kind == workload::JobKind::batch) {
    const double total = static_cast<double>(job.duration);
    perf_->goodput_ratios(job, placement, *topo_, perf::progress_step(total, work), perf::kProgressSteps, ratios_);
    charges_.insert(run, perf::StepProfile(total, work, [&](int k) { return ratios_[static_cast<std::size_t>(k)]; }));
  }
  if (perf_->shares_links()) {
    // The speed is settled at the end of the instant, with every start and end known.
    perf_->run_started(run, job, placement, *topo_);
    p.speed = 0;
    runs_.insert(run, p);
    return;
  }
  p.speed = perf_->speed(job, placement, *topo_);
  auto& stored = runs_.insert(run, p);
  schedule_end(run, stored, now);
}

bool SimExecutor::is_current(const engine::Event& e) const {
  const Progress* p = runs_.find(e.subject);
  return p && p->version == e.version;
}

void SimExecutor::finished(RunId run, engine::Time) {
  runs_.erase(run);
  charges_.erase(run);
  if (perf_->shares_links()) perf_->run_ended(run);
}

double SimExecutor::progress(RunId run, engine::Time now) const {
  const Progress* p = runs_.find(run);
  if (!p) return 0;
  return p->work - remaining_at(run, *p, now);
}

double SimExecutor::stop(RunId run, engine::Time now, bool /*graceful*/) {
  double done = progress(run, now);
  finished(run, now);
  return done;
}

void SimExecutor::settle(engine::Time now) {
  if (!perf_->shares_links()) return;
  changes_.clear();
  perf_->take_speed_changes(changes_);
  for (const auto& [run, speed] : changes_) {
    Progress* found = runs_.find(run);
    if (!found) continue;
    auto& p = *found;
    p.remaining = remaining_at(run, p, now);
    p.since = now;
    p.speed = speed;
    ++p.version;
    schedule_end(run, p, now);
  }
}

}  // namespace schedlab::sim
