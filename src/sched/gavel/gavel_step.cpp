// Gavel's round loop over the scheduler's records: the allocation program (max_min_fairness.h,
// finish_time_fairness.h) and the round pick (round_mechanism.h) are pure functions; this file
// keeps what Gavel's scheduler keeps between rounds (time received per type, deficits) and
// turns the picks into stops and starts through the same transaction and records as the
// built-in passes (stop_running, record_start).
#include "sched/gavel/gavel_step.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "perf/perf_model.h"
#include "sched/gavel/max_min_fairness.h"
#include "sched/gavel/round_mechanism.h"
#include "sched/placement_common.h"

namespace schedlab::sched::gavel {

GavelStep::GavelStep(Scheduler& s, const GavelSettings& settings, const perf::PerfModel& perf)
    : s_(s), settings_(settings), perf_(perf) {
  const auto& topo = *s_.topo_;
  std::vector<int> count(topo.catalog().size(), 0);
  for (const auto& h : topo.hosts())
    if (h.gpus) count[h.model] += h.gpus;
  for (cluster::ModelId m = 0; m < count.size(); ++m)
    if (count[m]) type_models_.push_back(m);
  // Fastest first, as Gavel lists its worker types (its per-type queues are taken in order).
  std::stable_sort(type_models_.begin(), type_models_.end(), [&](cluster::ModelId a, cluster::ModelId b) {
    return topo.catalog().model(a).speed > topo.catalog().model(b).speed;
  });
  for (auto m : type_models_) types_.push_back(GpuType{topo.catalog().model(m).name, count[m]});
}

std::vector<double> GavelStep::throughputs_of(const PendingJob& job) const {
  const auto& topo = *s_.topo_;
  const auto& spec = *job.spec;
  std::vector<double> out(types_.size(), 0.0);
  for (std::size_t k = 0; k < types_.size(); ++k) {
    const cluster::ModelId m = type_models_[k];
    if (!(job.allowed >> m & 1)) continue;
    // The tightest placement of the whole gang on GPUs of this type: hosts filled in order,
    // as many tasks on each as its GPUs, CPUs and memory hold (a type whose hosts hold none
    // of its tasks is 0: a pick there could never start).
    cluster::Placement p;
    std::uint32_t left = spec.tasks;
    const cluster::TaskNeed need = job.need();
    for (cluster::HostId h = 0; h < topo.hosts().size() && left > 0; ++h) {
      const auto& info = topo.host(h);
      if (info.gpus == 0 || info.model != m) continue;
      std::uint32_t fit = info.gpus / spec.gpus_per_task;
      if (need.cpu_milli) fit = std::min(fit, info.cpu_milli / need.cpu_milli);
      if (need.mem_mib) fit = std::min(fit, info.mem_mib / need.mem_mib);
      for (; fit > 0 && left > 0; --fit, --left)
        p.tasks.push_back(task_slot(job, h, static_cast<std::uint16_t>(spec.gpus_per_task)));
    }
    if (left == 0) out[k] = perf_.speed(spec, p, topo);
  }
  return out;
}

std::optional<std::string> GavelStep::refuses(const PendingJob& job) const {
  const auto& spec = *job.spec;
  if (!spec.needs_gpu()) return "gavel: the job needs no GPU; Gavel's policies allocate whole GPUs";
  if (spec.fractional()) return "gavel: the job asks for a share of a GPU; Gavel's policies allocate whole GPUs";
  const auto t = throughputs_of(job);
  if (std::none_of(t.begin(), t.end(), [](double v) { return v > 0; }))
    return fmt::format("gavel: the job needs {} GPUs of one type; no GPU type it may use has that many",
                       spec.total_gpus());
  return std::nullopt;
}

void GavelStep::job_submitted(const PendingJob& job) {
  Job j;
  j.spec = job.spec;
  j.throughput = throughputs_of(job);
  j.x.assign(types_.size(), 0.0);
  j.received.assign(types_.size(), 0.0);
  j.deficit.assign(types_.size(), 0.0);
  jobs_.emplace(job.id(), std::move(j));
  changed_ = true;
  if (!timer_set_) due_ = true;  // the rounds were idle: one starts at this instant
}

void GavelStep::job_stopped(workload::JobId id, StopCause /*cause*/) {
  auto it = jobs_.find(id);
  if (it != jobs_.end()) it->second.type = -1;
}

void GavelStep::forget(workload::JobId id) {
  if (jobs_.erase(id)) changed_ = true;
}
void GavelStep::job_ended(workload::JobId id, bool /*was_running*/) { forget(id); }
void GavelStep::job_forgotten(workload::JobId id) { forget(id); }

void GavelStep::own_timer(engine::Time now) {
  if (now != next_round_at_) return;  // a retry at a round's instant: decide() starts what it can
  timer_set_ = false;
  due_ = true;
}

void GavelStep::decide(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
                       std::vector<StopDecision>& stops) {
  if (due_) {
    due_ = false;
    round(now, alloc, starts, stops);
  } else {
    start_picked(now, alloc, starts);
  }
}

void GavelStep::reallocate(engine::Time now) {
  ++allocations_;
  // Gavel's reset: what each job should have received under the old X and did not is kept
  // as its deficit; the received times start again at half a round.
  const double since_reset = engine::to_seconds(now - reset_at_);
  for (auto& [id, j] : jobs_)
    for (std::size_t k = 0; k < types_.size(); ++k) j.deficit[k] += j.x[k] * since_reset - j.received[k];
  ThroughputMatrix m;
  m.types = types_;
  std::vector<double> done_s;
  std::vector<std::uint64_t> keys;
  for (const auto& [id, j] : jobs_) {
    keys.push_back(id);
    GavelJob g;
    g.name = std::to_string(id);
    g.throughput = j.throughput;
    g.scale_factor = static_cast<int>(j.spec->total_gpus());
    const double done = s_.ledger_->work_done(id, now) / 1e6;  // trace seconds
    done_s.push_back(done);
    g.elapsed_s = engine::to_seconds(now - j.spec->submit);
    // The unit of work is a second of the traced run: throughputs are speeds against the trace.
    g.remaining_work = std::max(engine::to_seconds(j.spec->duration) - done, 1e-6);
    m.jobs.push_back(std::move(g));
  }
  Allocation x;
  if (settings_.policy == GavelPolicy::max_min_fairness) {
    MaxMinOptions o;
    o.fill_leftover = settings_.fill_leftover;
    x = max_min_fairness(m, o).allocation;
  } else {
    // The time the work done so far would have taken at the job's isolated share.
    const auto iso = isolated_throughputs(m);
    for (std::size_t i = 0; i < m.jobs.size(); ++i) m.jobs[i].isolated_time_so_far_s = done_s[i] / iso[i];
    FinishTimeOptions o;
    o.fill_leftover = settings_.fill_leftover;
    x = ftf_.solve(m, keys, o).allocation;
  }
  const double half_round = engine::to_seconds(settings_.round) / 2;
  std::size_t i = 0;
  for (auto& [id, j] : jobs_) {
    for (std::size_t k = 0; k < types_.size(); ++k) {
      j.x[k] = x.at(i, k);
      j.received[k] = j.throughput[k] > 0 ? half_round : 0.0;
    }
    ++i;
  }
  reset_at_ = now;
}

void GavelStep::round(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
                      std::vector<StopDecision>& stops) {
  if (jobs_.empty()) return;  // idle until the next submit
  ++rounds_;
  next_round_at_ = now + settings_.round;
  s_.timers_.push_back({next_round_at_, kExternalTimer, 0});
  timer_set_ = true;
  for (auto& [id, j] : jobs_)
    if (j.type >= 0) {
      j.received[static_cast<std::size_t>(j.type)] += engine::to_seconds(now - j.since);
      j.since = now;
    }
  if (changed_) reallocate(now);
  changed_ = false;

  const std::size_t n = jobs_.size(), types = types_.size();
  ThroughputMatrix m;
  m.types = types_;
  m.jobs.reserve(n);
  Allocation x(n, types);
  RoundHistory history;
  history.received.reserve(n * types);
  history.deficit.reserve(n * types);
  std::size_t i = 0;
  for (const auto& [id, j] : jobs_) {
    GavelJob g;
    g.throughput = j.throughput;
    g.scale_factor = static_cast<int>(j.spec->total_gpus());
    m.jobs.push_back(std::move(g));
    for (std::size_t k = 0; k < types; ++k) x.at(i, k) = j.x[k];
    history.received.insert(history.received.end(), j.received.begin(), j.received.end());
    history.deficit.insert(history.deficit.end(), j.deficit.begin(), j.deficit.end());
    ++i;
  }
  const auto picks = next_round(m, x, history);
  i = 0;
  for (auto& [id, j] : jobs_) {
    j.picked = picks[i] ? static_cast<int>(*picks[i]) : -1;
    ++i;
    if (j.type < 0 || j.picked == j.type) continue;  // waiting, or its lease is renewed
    if (!j.spec->preemptible) {
      j.picked = j.type;  // it keeps its GPUs; the round's other starts place around it
      continue;
    }
    // Not picked on the type it runs on: preempted at the round's end, as in Gavel.
    s_.stop_running(id, StopCause::preempted, kNoJob, alloc, stops);
  }
  // A job moved to another type waits again only once its stop is applied, after this
  // decision: a second decision at this instant starts it (a stop that holds GPUs to save a
  // checkpoint frees them later, and the instant that frees them decides again).
  if (!start_picked(now, alloc, starts)) s_.timers_.push_back({now, kExternalTimer, 0});
}

bool GavelStep::start_picked(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts) {
  std::vector<cluster::TaskSlot> slots;
  bool all = true;
  for (auto& [id, j] : jobs_) {
    if (j.picked < 0 || j.type >= 0) continue;
    if (!s_.has_key(id) || !s_.key_state(id).queued) {
      all = false;
      continue;
    }
    auto it = s_.queue_.find(Scheduler::QueueKey{s_.key_state(id).key, id});
    PendingJob& job = it->second;
    const cluster::ModelId model = type_models_[static_cast<std::size_t>(j.picked)];
    slots.clear();
    cluster::AllocationTransaction tx(alloc);
    s_.placement_->place(job, job.tasks_left, job.allowed & (cluster::ModelMask{1} << model), tx, slots);
    if (slots.size() < job.tasks_left) {  // not yet (GPUs still held by a stop): tx rolls back
      all = false;
      continue;
    }
    tx.commit();
    s_.record_start(job, slots, now, starts);
    s_.key_state(id).queued = false;
    s_.dequeue(it);
    j.type = j.picked;
    j.since = now;
  }
  return all;
}

}  // namespace schedlab::sched::gavel
