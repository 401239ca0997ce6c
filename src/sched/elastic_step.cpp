// The resizing policies' shared step: gather the jobs, ask the policy for their GPU counts,
// realise the counts through the scheduler's records (resizes as stop-and-start in one pass).
#include "sched/elastic_step.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "perf/goodput_steps.h"
#include "perf/perf_model.h"

namespace schedlab::sched {

std::optional<std::string> ElasticStep::refuses(const PendingJob& pending) const {
  const workload::JobSpec& job = *pending.spec;
  if (!job.needs_gpu() || job.fractional())
    return "policy " + policy_ + " sizes jobs in whole GPUs: a job of GPU shares or of CPUs only never runs";
  return std::nullopt;
}

void ElasticStep::job_ended(workload::JobId id, bool /*was_running*/) {
  dirty_ = true;
  job_forgotten(id);
}

void ElasticStep::job_forgotten(workload::JobId id) {
  dirty_ = true;
  if (id < memo_.size()) memo_[id] = JobMemo{};
}

const cluster::Placement& ElasticStep::packed(std::uint64_t n) {
  while (packed_.size() <= n) {
    // The tightest packing of packed_.size() GPUs: hosts in id order, each filled.
    cluster::Placement p;
    std::uint64_t left = packed_.size();
    for (cluster::HostId h = 0; left > 0 && h < s_.topo_->hosts().size(); ++h) {
      const auto g = static_cast<std::uint16_t>(std::min<std::uint64_t>(left, s_.topo_->host(h).gpus));
      for (std::uint16_t t = 0; t < g; ++t) p.tasks.push_back(cluster::TaskSlot{h, 1});
      left -= g;
    }
    packed_.push_back(std::move(p));
  }
  return packed_[n];
}

ElasticStep::JobMemo& ElasticStep::memo_of(workload::JobId id) {
  if (id >= memo_.size()) memo_.resize(std::max<std::size_t>(id + 1, memo_.size() * 2));
  return memo_[id];
}

double ElasticStep::speed_asked(const workload::JobSpec& job, std::uint64_t n) {
  if (!s_.perf_) throw std::logic_error("policy " + policy_ + " needs the run's perf model");
  auto& known = memo_of(job.id).speed;
  if (known.size() <= n) known.resize(n + 1, -1.0);
  if (known[n] < 0) known[n] = n == 0 ? 0.0 : s_.perf_->speed(job, packed(n), *s_.topo_);
  return known[n];
}

double ElasticStep::goodput(const workload::JobSpec& job, std::uint64_t n, int step) {
  if (n == 0) return 0;
  const std::uint64_t key = n << 8 | static_cast<std::uint64_t>(step);
  auto& known = memo_of(job.id).goodput;
  if (auto it = known.find(key); it != known.end()) return it->second;
  const double v = speed(job, n) * s_.perf_->goodput_ratio(job, packed(n), *s_.topo_,
                                                           static_cast<double>(step) / perf::kProgressSteps);
  known.emplace(key, v);
  return v;
}

void ElasticStep::wake_at(engine::Time t) { s_.timers_.push_back({t, kExternalTimer, 0}); }

bool ElasticStep::start(PendingJob& job, std::uint64_t want, std::uint64_t need, engine::Time now,
                        cluster::AllocationState& alloc, std::vector<StartDecision>& starts) {
  SchedContext ctx{*s_.topo_, alloc, now, s_.pool_book()};
  std::vector<cluster::TaskSlot> slots;
  const auto tasks = static_cast<std::uint32_t>(job.spec->elastic() ? want : job.spec->tasks);
  for (auto mask : s_.placement_groups(job, &ctx)) {
    job.tasks_left = tasks;
    if (short_of(job, tasks, need, mask, alloc)) continue;
    slots.clear();
    cluster::AllocationTransaction tx(alloc);
    s_.placement_->place(job, tasks, mask, tx, slots);
    if (cluster::gpus_of(slots) < need) continue;  // discarded: tx rolls back
    tx.commit();
    job.tasks_left = static_cast<std::uint32_t>(slots.size());  // an elastic job runs on what placed
    s_.record_start(job, slots, now, starts);
    return true;
  }
  return false;
}

bool ElasticStep::short_of(const PendingJob& job, std::uint64_t tasks, std::uint64_t need, cluster::ModelMask mask,
                           const cluster::AllocationState& alloc) {
  const auto g = static_cast<std::uint16_t>(job.spec->gpus_per_task);
  if (g == 0 || job.spec->fractional()) return false;
  const cluster::TaskNeed room = job.need();
  Usable& u = usable_;
  if (u.version != alloc.version() || u.mask != mask || u.gpus_per_task != g || u.need.cpu_milli != room.cpu_milli ||
      u.need.mem_mib != room.mem_mib) {
    std::uint64_t n = 0;
    for (cluster::ModelId m = 0; m < s_.topo_->catalog().size(); ++m)
      if (mask >> m & 1) n += alloc.usable_gpus(m, g, room);
    u = {alloc.version(), mask, g, room, n};
  }
  return std::min(tasks * g, u.gpus) < need;
}

void ElasticStep::running_in_order(std::vector<Entry>& jobs, std::uint64_t& capacity) {
  // The running jobs, marked by id with where they are in `here_`.
  round_ += 2;
  here_.clear();
  for (const auto& [id, run] : s_.running_) {
    if (id >= mark_.size()) mark_.resize(std::max<std::size_t>(id + 1, mark_.size() * 2), {0, 0});
    mark_[id] = {round_, static_cast<std::uint32_t>(here_.size())};
    here_.push_back({{s_.key_state(id).key, id}, run.spec, run.gpus, s_.queue_.end()});
    capacity += run.gpus;
  }
  // Those of the last plan in its order, then the others; mostly in order already, so an
  // insertion sort finishes it in about one pass. Keys are unique (the id is part of them):
  // any sort gives this order.
  jobs.clear();
  for (auto id : last_order_)
    if (id < mark_.size() && mark_[id].first == round_) {
      jobs.push_back(here_[mark_[id].second]);
      mark_[id].first = round_ + 1;
    }
  for (const auto& e : here_)
    if (mark_[e.key.second].first == round_) jobs.push_back(e);
  for (std::size_t i = 1; i < jobs.size(); ++i) {
    if (!(jobs[i].key < jobs[i - 1].key)) continue;
    Entry e = jobs[i];
    std::size_t k = i;
    for (; k > 0 && e.key < jobs[k - 1].key; --k) jobs[k] = jobs[k - 1];
    jobs[k] = e;
  }
  last_order_.clear();
  for (const auto& e : jobs) last_order_.push_back(e.key.second);
}

void ElasticStep::decide(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
                         std::vector<StopDecision>& stops) {
  if (!dirty_ && alloc.release_epoch() == epoch_) return;
  dirty_ = false;
  // Running jobs first (in queue-key order), then waiting ones in queue order.
  auto& jobs = jobs_;
  std::uint64_t capacity = alloc.free_gpus();
  running_in_order(jobs, capacity);
  for (auto it = s_.queue_.begin(); it != s_.queue_.end(); ++it) jobs.push_back({it->first, it->second.spec, 0, it});
  auto& views = views_;
  views.clear();
  for (const auto& j : jobs) {
    const auto& life = s_.ledger_->life(j.spec->id);
    views.push_back({j.spec, j.held, life.work_total - s_.ledger_->work_done(j.spec->id, now), life.work_total,
                     engine::to_seconds(now - j.spec->submit), life.resizes});
  }
  now_ = now;
  const auto sizes = plan(views, capacity);
  // Stops first, so that the starts see every GPU the plan counted on.
  auto& resized = resized_;
  resized.clear();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].held == 0 || sizes[i] == jobs[i].held) continue;
    const auto id = jobs[i].spec->id;
    std::vector<cluster::TaskSlot> held;
    s_.ledger_->held_slots(id, held);
    alloc.release(cluster::Placement{std::move(held)});
    s_.job_stopped(id, StopCause::resized);
    stops.push_back(StopDecision{id, StopCause::resized, kNoJob, true});
    resized.push_back(i);
  }
  for (auto i : resized) {
    const auto& spec = *jobs[i].spec;
    PendingJob job{&spec, s_.key_state(spec.id).requested, spec.tasks};
    job.allowed = s_.allowed_models(job);
    // Where the new size does not place, the job waits for the next plan.
    if (!start(job, sizes[i], spec.min_size(), now, alloc, starts)) s_.requeue(spec.id, now);
  }
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].held != 0 || sizes[i] == 0) continue;
    PendingJob& job = jobs[i].queued->second;
    if (!start(job, sizes[i], job.spec->min_size(), now, alloc, starts)) continue;
    s_.key_state(job.id()).queued = false;
    s_.dequeue(jobs[i].queued);
  }
  epoch_ = alloc.release_epoch();
}

}  // namespace schedlab::sched
