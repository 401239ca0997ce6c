// `scheduler.policy: sia`: the jobs' configurations and goodputs gathered from the scheduler's
// records and the perf model, Sia's program solved (sia_plan.h), the choice realised through the
// same records and allocation transaction as the other resizing policies.
#include "sched/sia_step.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "perf/goodput_steps.h"
#include "perf/perf_model.h"
#include "sched/placement_common.h"

namespace schedlab::sched {

SiaStep::SiaStep(Scheduler& s, SiaSettings settings) : s_(s), settings_(settings) {
  const auto& topo = *s_.topo_;
  std::vector<Type> by_model(topo.catalog().size());
  for (cluster::ModelId m = 0; m < by_model.size(); ++m) by_model[m].model = m;
  for (const auto& h : topo.hosts()) {
    if (h.gpus == 0) continue;
    by_model[h.model].gpus += h.gpus;
    by_model[h.model].host_gpus = std::max(by_model[h.model].host_gpus, h.gpus);
  }
  for (const auto& t : by_model)
    if (t.gpus) types_.push_back(t);
  std::stable_sort(types_.begin(), types_.end(), [&](const Type& a, const Type& b) {
    return topo.catalog().model(a.model).speed > topo.catalog().model(b.model).speed;
  });
}

std::vector<std::uint64_t> SiaStep::counts(const workload::JobSpec& job, std::size_t t) const {
  const Type& type = types_[t];
  const std::uint64_t lo = job.min_size(), hi = std::min(job.max_size(), type.gpus);
  std::vector<std::uint64_t> out;
  // Sia's ladder (the artifact's CONFIGS_4GPU/8GPU): 1, 2, 4, ... below a host, then whole hosts.
  for (std::uint64_t n = 1; n < type.host_gpus; n *= 2)
    if (n >= lo && n <= hi) out.push_back(n);
  for (std::uint64_t n = type.host_gpus; n <= hi; n += type.host_gpus)
    if (n >= lo) out.push_back(n);
  // A range the ladder misses (a rigid job of 3, a range 5..7 on 8-GPU hosts): its fewest.
  if (out.empty() && lo <= type.gpus) out.push_back(lo);
  return out;
}

cluster::Placement SiaStep::packing(const workload::JobSpec& job, std::size_t t, std::uint64_t n) const {
  const auto& topo = *s_.topo_;
  const cluster::ModelId m = types_[t].model;
  // An elastic job runs one GPU a task (elastic_step.h); a rigid one its traced gang.
  const std::uint32_t per_task = job.elastic() ? 1 : job.gpus_per_task;
  std::uint64_t left = job.elastic() ? n : job.tasks;
  PendingJob pending{&job, 0, 0};
  const cluster::TaskNeed need = pending.need();
  cluster::Placement p;
  for (cluster::HostId h = 0; h < topo.hosts().size() && left > 0; ++h) {
    const auto& info = topo.host(h);
    if (info.gpus == 0 || info.model != m) continue;
    std::uint64_t fit = info.gpus / per_task;
    if (need.cpu_milli) fit = std::min<std::uint64_t>(fit, info.cpu_milli / need.cpu_milli);
    if (need.mem_mib) fit = std::min<std::uint64_t>(fit, info.mem_mib / need.mem_mib);
    for (; fit > 0 && left > 0; --fit, --left)
      p.tasks.push_back(task_slot(pending, h, static_cast<std::uint16_t>(per_task)));
  }
  if (left > 0) p.tasks.clear();
  return p;
}

double SiaStep::goodput(const workload::JobSpec& job, std::size_t t, std::uint64_t n, int step) {
  if (!s_.perf_) throw std::logic_error("policy sia needs the run's perf model");
  const auto percent = static_cast<std::uint64_t>(step);
  const std::uint64_t key = (static_cast<std::uint64_t>(t) << 56) | (n << 8) | percent;
  auto& known = memo_[job.id];
  if (auto it = known.find(key); it != known.end()) return it->second;
  const cluster::Placement p = packing(job, t, n);
  double v = 0;
  if (!p.tasks.empty())
    v = s_.perf_->speed(job, p, *s_.topo_) * s_.perf_->goodput_ratio(job, p, *s_.topo_, percent / 100.0);
  known.emplace(key, v);
  return v;
}

std::optional<std::string> SiaStep::refuses(const PendingJob& pending) const {
  const workload::JobSpec& job = *pending.spec;
  if (!job.needs_gpu() || job.fractional())
    return "policy sia sizes jobs in whole GPUs: a job of GPU shares or of CPUs only never runs";
  for (std::size_t t = 0; t < types_.size(); ++t) {
    if (!(pending.allowed >> types_[t].model & 1)) continue;
    const auto c = counts(job, t);
    if (!c.empty() && !packing(job, t, c.front()).tasks.empty()) return std::nullopt;
  }
  return fmt::format("policy sia runs a job on GPUs of one type: no type it may use holds its {} GPUs", job.min_size());
}

void SiaStep::job_forgotten(workload::JobId id) {
  dirty_ = true;
  memo_.erase(id);
  started_.erase(id);
}

bool SiaStep::start(PendingJob& job, std::size_t t, std::uint64_t n, engine::Time now, cluster::AllocationState& alloc,
                    std::vector<StartDecision>& starts) {
  std::vector<cluster::TaskSlot> slots;
  const auto tasks = static_cast<std::uint32_t>(job.spec->elastic() ? n : job.spec->tasks);
  cluster::AllocationTransaction tx(alloc);
  job.tasks_left = tasks;
  s_.placement_->place(job, tasks, job.allowed & (cluster::ModelMask{1} << types_[t].model), tx, slots);
  if (cluster::gpus_of(slots) < job.spec->min_size()) return false;  // tx rolls back
  tx.commit();
  job.tasks_left = static_cast<std::uint32_t>(slots.size());  // an elastic job runs on what placed
  s_.record_start(job, slots, now, starts);
  started_[job.id()] = now;
  return true;
}

void SiaStep::decide(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
                     std::vector<StopDecision>& stops) {
  if (!dirty_ && alloc.release_epoch() == epoch_) return;
  dirty_ = false;
  const auto& topo = *s_.topo_;
  std::vector<int> type_of_model(topo.catalog().size(), -1);
  for (std::size_t t = 0; t < types_.size(); ++t) type_of_model[types_[t].model] = static_cast<int>(t);
  std::vector<std::uint64_t> capacity(types_.size());
  for (std::size_t t = 0; t < types_.size(); ++t) capacity[t] = alloc.free_gpus(types_[t].model);

  // Running jobs first (in queue-key order), then waiting ones in queue order, as elastic_step.
  struct Entry {
    const workload::JobSpec* spec;
    std::uint64_t held;  // GPUs it runs on now; 0 = waiting
    int type;            // the type it runs on (-1: waiting)
    bool pinned;         // keeps its configuration
    std::map<Scheduler::QueueKey, PendingJob>::iterator queued;
  };
  std::vector<Entry> jobs;
  std::vector<cluster::TaskSlot> held;
  const auto restart = engine::from_seconds(settings_.restart_penalty_s);
  for (const auto& [id, run] : s_.running_) {
    s_.ledger_->held_slots(id, held);
    const int t = held.empty() ? -1 : type_of_model[topo.host(held.front().host).model];
    auto since = started_.find(id);
    const bool restoring = since != started_.end() && now - since->second < restart;
    jobs.push_back({run.spec, run.gpus, t, t < 0 || !run.spec->preemptible || restoring, s_.queue_.end()});
    if (t >= 0) capacity[static_cast<std::size_t>(t)] += run.gpus;
  }
  std::sort(jobs.begin(), jobs.end(), [&](const Entry& a, const Entry& b) {
    return Scheduler::QueueKey{s_.key_state(a.spec->id).key, a.spec->id} <
           Scheduler::QueueKey{s_.key_state(b.spec->id).key, b.spec->id};
  });
  for (auto it = s_.queue_.begin(); it != s_.queue_.end(); ++it) jobs.push_back({it->second.spec, 0, -1, false, it});

  // Each unpinned job's configurations; a pinned one's GPUs are not the program's to give.
  std::vector<SiaJob> program;
  std::vector<std::size_t> entry_of;
  program.reserve(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const Entry& e = jobs[i];
    if (e.pinned) {
      if (e.type >= 0) capacity[static_cast<std::size_t>(e.type)] -= e.held;
      continue;
    }
    const auto& life = s_.ledger_->life(e.spec->id);
    const double done = s_.ledger_->work_done(e.spec->id, now);
    // The progress step the simulator charges the run's goodput at (perf/goodput_steps.h).
    const int progress = perf::progress_step(life.work_total, std::max(0.0, life.work_total - done));
    PendingJob probe{e.spec, s_.key_state(e.spec->id).requested, e.spec->tasks};
    const cluster::ModelMask allowed =
        e.queued != s_.queue_.end() ? e.queued->second.allowed : s_.allowed_models(probe);
    SiaJob job;
    for (std::size_t t = 0; t < types_.size(); ++t) {
      if (!(allowed >> types_[t].model & 1)) continue;
      for (auto n : counts(*e.spec, t)) {
        const double g = goodput(*e.spec, t, n, progress);
        if (g > 0) job.options.push_back({t, n, g});
      }
    }
    if (e.held > 0) {
      // Its configuration now, offered even where off the ladder (it placed fewer than asked).
      const auto t = static_cast<std::size_t>(e.type);
      auto it = std::find_if(job.options.begin(), job.options.end(),
                             [&](const SiaOption& o) { return o.type == t && o.gpus == e.held; });
      if (it == job.options.end()) {
        job.options.push_back({t, e.held, std::max(goodput(*e.spec, t, e.held, progress), 1e-12)});
        it = job.options.end() - 1;
      }
      job.current = static_cast<int>(it - job.options.begin());
      // The artifact's re-allocation factor (Pollux's): (age - restarts x R) / (age + R), 1 while
      // the job is younger than R.
      const double age = engine::to_seconds(now - e.spec->submit), r = settings_.restart_penalty_s;
      const double restarts = static_cast<double>(life.restarts) + static_cast<double>(life.resizes);
      if (r > 0 && age >= r) job.keep = std::max(age - restarts * r, 0.0) / (age + r);
    }
    program.push_back(std::move(job));
    entry_of.push_back(i);
  }
  SiaParams params{settings_.p, settings_.lambda_n, settings_.lambda_a, settings_.mip_nodes};
  last_ = sia_plan(program, capacity, params);
  ++plans_;

  // Stops first, so that the starts see every GPU the plan counted on.
  std::vector<std::pair<std::size_t, const SiaOption*>> moved;  // resized: entry, new configuration
  for (std::size_t k = 0; k < program.size(); ++k) {
    const Entry& e = jobs[entry_of[k]];
    const int c = last_.choice[k];
    if (e.held == 0 || c == program[k].current) continue;
    const auto id = e.spec->id;
    started_.erase(id);
    if (c < 0) {  // left out: preempted, waits again
      s_.stop_running(id, StopCause::preempted, kNoJob, alloc, stops);
      continue;
    }
    s_.ledger_->held_slots(id, held);
    alloc.release(cluster::Placement{held});
    s_.job_stopped(id, StopCause::resized);
    stops.push_back(StopDecision{id, StopCause::resized, kNoJob, true});
    moved.emplace_back(entry_of[k], &program[k].options[static_cast<std::size_t>(c)]);
  }
  for (const auto& [i, o] : moved) {
    const auto& spec = *jobs[i].spec;
    PendingJob job{&spec, s_.key_state(spec.id).requested, spec.tasks};
    job.allowed = s_.allowed_models(job);
    // Where the new configuration does not place, the job waits for the next plan.
    if (!start(job, o->type, o->gpus, now, alloc, starts)) s_.requeue(spec.id, now);
  }
  for (std::size_t k = 0; k < program.size(); ++k) {
    const Entry& e = jobs[entry_of[k]];
    const int c = last_.choice[k];
    if (e.held != 0 || c < 0) continue;
    const SiaOption& o = program[k].options[static_cast<std::size_t>(c)];
    PendingJob& job = e.queued->second;
    if (!start(job, o.type, o.gpus, now, alloc, starts)) continue;
    s_.key_state(job.id()).queued = false;
    s_.dequeue(e.queued);
  }
  epoch_ = alloc.release_epoch();
}

}  // namespace schedlab::sched
