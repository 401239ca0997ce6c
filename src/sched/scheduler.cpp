// The scheduler's records of the jobs it holds: submit (with the never-fits check), the
// queue, starts and stops as the decision steps record them, ends, requeues; each change
// told to the job listeners. The decision itself is the step's (builtin_passes.cpp,
// external_step.cpp), the keys' upkeep scheduler_keys.cpp's.
#include "sched/scheduler.h"

#include <algorithm>

#include "pools/pool_book.h"
#include "sched/afs_step.h"
#include "sched/builtin_passes.h"
#include "sched/elastic_settings.h"
#include "sched/external_step.h"
#include "sched/gavel/gavel_step.h"
#include "sched/optimus_step.h"
#include "sched/pollux_step.h"
#include "sched/pools_listener.h"
#include "sched/sia_step.h"

namespace schedlab::sched {

namespace {
PartArgs args_for(const SchedulerConfig& c, const std::string& name) {
  auto it = c.args.find(name);
  return it == c.args.end() ? PartArgs{} : it->second;
}
}  // namespace

Scheduler::Scheduler(const SchedulerConfig& c, const PartRegistry& r, const cluster::Topology& topo,
                     const JobLedger* ledger, const perf::PerfModel* perf)
    : topo_(&topo),
      ledger_(ledger ? ledger : &fresh_ledger_),
      // An external policy or Gavel decides the order itself; the queue keeps (submit, id) order.
      queue_order_(r.queues.make(c.external.command.empty() && c.policy.empty() ? c.queue : "fifo",
                                 args_for(c, c.queue))),
      placement_(r.placements.make(c.placement, args_for(c, c.placement))),
      preemption_(r.preemptions.make(c.preemption, args_for(c, c.preemption))),
      backfill_(r.backfills.make(c.backfill, args_for(c, c.backfill))),
      admission_names_(c.admission),
      placement_name_(c.placement),
      backfill_name_(c.backfill) {
  for (const auto& a : c.admission) admissions_.push_back(r.admissions.make(a, args_for(c, a)));
  for (const auto& f : c.filters) filters_.push_back(r.filters.make(f, args_for(c, f)));
  for (const auto& f : filters_)
    if (f->watches_queue()) queue_watchers_.push_back(f.get());
  shapes_ = host_shapes(topo);
  need_indexed_ = backfill_->max_scan() > 0;
  perf_ = perf;
  if (c.policy == "sia") {
    auto step = std::make_unique<SiaStep>(*this, sia_settings(c));
    add_listener(step.get());
    step_ = std::move(step);
  } else if (is_elastic_policy(c.policy)) {
    std::unique_ptr<ElasticStep> step;
    if (c.policy == "pollux")
      step = std::make_unique<PolluxStep>(*this, pollux_settings(c));
    else if (c.policy == "afs")
      step = std::make_unique<AfsStep>(*this);
    else
      step = std::make_unique<OptimusStep>(*this, optimus_settings(c));
    add_listener(step.get());
    step_ = std::move(step);
  } else if (!c.policy.empty()) {
    if (!perf) throw std::invalid_argument("Scheduler: policy '" + c.policy + "' needs the run's perf model");
    auto step = std::make_unique<gavel::GavelStep>(*this, gavel::gavel_settings(c), *perf);
    add_listener(step.get());
    step_ = std::move(step);
  } else if (c.external.command.empty()) {
    auto step = std::make_unique<BuiltinPasses>(*this);
    add_listener(step.get());
    step_ = std::move(step);
  } else {
    auto step = std::make_unique<ExternalStep>(*this, c.external);
    add_listener(step.get());
    step_ = std::move(step);
  }
}

Scheduler::~Scheduler() = default;

bool Scheduler::resizes() const { return step_->resizes(); }
bool Scheduler::adapts_batch() const { return step_->adapts_batch(); }

void Scheduler::use_pools(pools::PoolBook* book, engine::Time period) {
  pools_ = std::make_unique<PoolsListener>(*book, period);
  add_listener(pools_.get());
  for (std::size_t a = 0; a < admissions_.size(); ++a)
    if (admissions_[a]->refuses_over_pool()) {
      use_lanes_ = need_indexed_ = true;
      lane_gate_ = a;
      break;
    }
}

LaneRefusals Scheduler::lane_refusals() const { return use_lanes_ ? lanes_.refusals(pools_->book()) : LaneRefusals{}; }

const pools::PoolBook* Scheduler::pool_book() const { return pools_ ? &pools_->book() : nullptr; }

cluster::ModelMask Scheduler::allowed_models(const PendingJob& job) const {
  cluster::ModelMask mask = topo_->models_present();
  // Hosts without GPUs are for jobs that need none.
  if (job.spec->needs_gpu()) mask &= ~cluster::kHostsWithoutGpus;
  for (const auto& f : filters_) mask = f->allowed(job, mask, *topo_);
  return mask;
}

bool Scheduler::one_generation(const PendingJob& job) const {
  return std::any_of(filters_.begin(), filters_.end(), [&](const auto& f) { return f->one_generation(job); });
}

std::vector<cluster::ModelMask> Scheduler::placement_groups(const PendingJob& job, const SchedContext* ctx) const {
  std::vector<cluster::ModelMask> groups;
  placement_groups(job, ctx, groups);
  return groups;
}

void Scheduler::placement_groups(const PendingJob& job, const SchedContext* ctx,
                                 std::vector<cluster::ModelMask>& groups) const {
  groups.clear();
  cluster::ModelMask allowed = allowed_models(job);
  if (ctx)
    for (const auto& f : filters_) allowed = f->allowed_now(job, allowed, *ctx);
  if (!one_generation(job)) {
    groups.push_back(allowed);
    return;
  }
  // One group per generation, newest first.
  const auto& catalog = topo_->catalog();
  std::vector<int> gens;
  for (cluster::ModelId m = 0; m < catalog.size(); ++m)
    if (allowed >> m & 1) gens.push_back(catalog.model(m).generation);
  std::sort(gens.rbegin(), gens.rend());
  gens.erase(std::unique(gens.begin(), gens.end()), gens.end());
  for (int g : gens) {
    if (job.generation != 0 && g != job.generation) continue;  // join the tasks already running
    cluster::ModelMask mask = 0;
    for (cluster::ModelId m = 0; m < catalog.size(); ++m)
      if ((allowed >> m & 1) && catalog.model(m).generation == g) mask |= cluster::ModelMask{1} << m;
    groups.push_back(mask);
  }
}

std::optional<std::string> Scheduler::submit(const workload::JobSpec& spec, cluster::ModelMask requested,
                                             engine::Time now) {
  // A GPU request names GPU models; it says nothing against hosts without GPUs.
  requested |= cluster::kHostsWithoutGpus;
  PendingJob job{&spec, requested, spec.tasks};
  job.waiting_since = now;
  job.allowed = allowed_models(job);
  if (auto why = never_runs(job)) {
    for (auto* l : listeners_) l->job_refused(spec.id);
    return why;
  }
  queue_order_->job_submitted(spec);
  if (queue_order_->rekeys_running_at_events()) event_news_ = true;
  if (!workload_expected_) placement_->expect(job);
  auto& ks = new_key_state(spec.id);
  ks.spec = &spec;
  ks.requested = requested;
  ks.key = queue_order_->key(spec, *ledger_, false, now);
  ks.queued = true;
  enqueue(QueueKey{ks.key, spec.id}, job);
  for (auto* l : listeners_) l->job_submitted(job);
  if (queue_order_->keyed_by_user()) user_jobs_[spec.user].push_back(spec.id);
  if (auto t = queue_order_->next_change(spec, *ledger_, false, now); t != engine::kTimeMax)
    timers_.push_back({t, spec.id, ks.version});
  if (auto period = queue_order_->rekey_period(); period > 0 && next_rekey_ == engine::kTimeMax) {
    next_rekey_ = now + period;
    timers_.push_back({next_rekey_, kNoJob, 0});
  }
  return std::nullopt;
}

std::optional<std::string> Scheduler::never_runs(const PendingJob& job) const {
  auto why = never_fits(job, placement_groups(job), shapes_, topo_->catalog());
  for (std::size_t a = 0; !why && a < admissions_.size(); ++a) why = admissions_[a]->never_admits(job, pool_book());
  if (!why) why = step_->refuses(job);
  return why;
}

std::optional<std::string> Scheduler::never_runs(const workload::JobSpec& spec, cluster::ModelMask requested) const {
  PendingJob job{&spec, requested | cluster::kHostsWithoutGpus, spec.tasks};
  job.allowed = allowed_models(job);
  return never_runs(job);
}

void Scheduler::expect_workload(const workload::JobSpec& spec, cluster::ModelMask requested) {
  workload_expected_ = true;
  placement_->expect(PendingJob{&spec, requested | cluster::kHostsWithoutGpus, spec.tasks});
}

void Scheduler::enqueue(QueueKey key, const PendingJob& job) {
  auto it = queue_.emplace(key, job).first;
  if (need_indexed_) {
    const auto e = need_entry(key, job);
    need_index_.insert(e);
    lanes_.add(e.lane, e.lane_gpus);
  }
  if (!job.spec->needs_gpu()) ++queued_without_gpu_;
  for (auto* f : queue_watchers_) f->job_waiting(it->second);
}

void Scheduler::dequeue(std::map<QueueKey, PendingJob>::iterator it) {
  if (!it->second.spec->needs_gpu()) --queued_without_gpu_;
  for (auto* f : queue_watchers_) f->job_not_waiting(it->second);
  if (need_indexed_) {
    const auto e = need_index_.erase(it->first);
    lanes_.remove(e.lane, e.lane_gpus);
  }
  queue_.erase(it);
}

void Scheduler::move_in_queue(const QueueKey& from, const QueueKey& to) {
  auto node = queue_.extract(from);
  node.key() = to;
  if (need_indexed_) {
    need_index_.erase(from);
    need_index_.insert(need_entry(to, node.mapped()));
  }
  queue_.insert(std::move(node));
}

QueueNeedIndex::Entry Scheduler::need_entry(const QueueKey& key, const PendingJob& job) const {
  const auto& s = *job.spec;
  // As the start pass counts it: a gang needs all its tasks at once, other jobs one task;
  // shares of a GPU may fit on GPUs in use, so a fractional job needs no free one.
  const bool whole = std::any_of(admissions_.begin(), admissions_.end(),
                                 [&](const auto& a) { return a->all_or_nothing(job); });
  const std::uint64_t gpus = s.fractional() ? 0 : std::uint64_t{whole ? job.tasks_left : 1} * s.gpus_per_task;
  QueueNeedIndex::Entry e{key, gpus, s.fractional() ? 0 : s.gpus_per_task, s.estimate > 0 ? s.estimate : s.duration};
  if (use_lanes_) {
    const auto& book = pools_->book();
    e.lane = PoolLanes::lane_of(book, book.pool_of(job.id()), s);
    e.lane_gpus = PoolLanes::gpus(s, whole ? job.tasks_left : 1);
    e.allowed = job.allowed;
    for (std::size_t a = 0; a < lane_gate_ && e.blocking != QueueNeedIndex::kAsk; ++a) {
      const auto free = admissions_[a]->admits_with_free(job);
      e.blocking = free ? std::max(e.blocking, *free) : QueueNeedIndex::kAsk;
    }
  }
  return e;
}

void Scheduler::schedule(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts) {
  std::vector<StopDecision> stops;
  schedule(now, alloc, starts, stops);
}

void Scheduler::schedule(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
                         std::vector<StopDecision>& stops) {
  if (event_news_) rekey_running(now);
  event_news_ = false;
  step_->decide(now, alloc, starts, stops);
  if (queue_order_->moves_waiting_behind_running()) move_waiting_behind_running(stops);
}

void Scheduler::record_start(PendingJob& job, std::vector<cluster::TaskSlot>& slots, engine::Time now,
                             std::vector<StartDecision>& starts) {
  job.tasks_left -= static_cast<std::uint32_t>(slots.size());
  const workload::JobId id = job.id();
  for (auto* l : listeners_) l->tasks_started(job, static_cast<std::uint32_t>(slots.size()));
  auto& ks = key_state(id);
  auto [it, fresh] = running_.try_emplace(id);
  auto& run = it->second;
  if (!fresh && backfill_->max_scan() > 0) running_by_end_.erase(RunningJob{id, run.gpus, run.expected_end});
  run.spec = job.spec;
  run.gpus += cluster::gpus_of(slots);
  const auto& s = *job.spec;
  // Expected end for reservations: the estimate (or traced duration) less the work done.
  double left = static_cast<double>(s.estimate > 0 ? s.estimate : s.duration) - ledger_->work_done(id, now);
  run.expected_end = engine::add_saturating(now, engine::from_micros(std::max(left, 0.0)));
  if (backfill_->max_scan() > 0) running_by_end_.insert(RunningJob{id, run.gpus, run.expected_end});
  starts.push_back(StartDecision{id, slots, job.tasks_left == 0});
  started_.push_back(id);
  ++changes_;
  if (fresh) {
    ks.running = true;
    // Only the preemption pass walks running jobs in queue order.
    if (preemption_->enabled()) running_by_key_.insert(QueueKey{ks.key, id});
  }
}

void Scheduler::drop_running(workload::JobId id) {
  auto it = running_.find(id);
  if (it == running_.end()) return;
  for (auto* l : listeners_) l->job_left_running(id);
  ++changes_;
  if (backfill_->max_scan() > 0) running_by_end_.erase(RunningJob{id, it->second.gpus, it->second.expected_end});
  auto& ks = key_state(id);
  if (preemption_->enabled()) running_by_key_.erase(QueueKey{ks.key, id});
  ks.running = false;
  running_.erase(it);
}

void Scheduler::stop_running(workload::JobId id, StopCause cause, workload::JobId by, cluster::AllocationState& alloc,
                             std::vector<StopDecision>& stops) {
  StopDecision d{id, cause, by, ledger_->stop_hold(id) == 0};
  if (d.released) {
    std::vector<cluster::TaskSlot> held;
    ledger_->held_slots(id, held);
    alloc.release(cluster::Placement{std::move(held)});
  }
  // Tasks of a partly started job that still waited leave the queue with it: the whole job
  // is placed again from scratch when it is requeued.
  job_stopped(id, cause);
  if (is_preemption(cause)) ++preemptions_;
  stops.push_back(d);
}

void Scheduler::job_ended(workload::JobId id, engine::Time now) {
  const bool was_running = running_.count(id) > 0;
  drop_running(id);
  if (queue_order_->rekeys_running_at_events()) event_news_ = true;
  for (auto* l : listeners_) l->job_ended(id, was_running);
  if (!has_key(id)) return;
  const auto user = key_state(id).spec->user;
  release_key_state(id);
  if (queue_order_->keyed_by_user()) rekey_user(user, now);
}

void Scheduler::job_stopped(workload::JobId id, StopCause cause) {
  for (auto* l : listeners_) l->job_stopped(id, cause);
  unrun(id);
}

void Scheduler::unrun(workload::JobId id) {
  drop_running(id);
  auto& ks = key_state(id);
  if (ks.queued) {
    dequeue(queue_.find(QueueKey{ks.key, id}));
    ks.queued = false;
  }
  ++ks.version;
}

void Scheduler::requeue(workload::JobId id, engine::Time now) {
  auto& ks = key_state(id);
  if (ks.queued) dequeue(queue_.find(QueueKey{ks.key, id}));
  const auto& spec = *ks.spec;
  PendingJob job{&spec, 0, spec.tasks};
  // The request and filters are those it was submitted with.
  job.requested = ks.requested;
  job.waiting_since = now;
  job.allowed = allowed_models(job);
  ks.queued = true;
  ks.key = queue_order_->key(spec, *ledger_, false, now);
  ++ks.version;
  enqueue(QueueKey{ks.key, id}, job);
  for (auto* l : listeners_) l->job_requeued(job);
  ++changes_;
  if (auto t = queue_order_->next_change(spec, *ledger_, false, now); t != engine::kTimeMax)
    timers_.push_back({std::max(t, now), id, ks.version});
  if (queue_order_->keyed_by_user()) rekey_user(spec.user, now);
}

void Scheduler::forget(workload::JobId id, engine::Time now) {
  unrun(id);
  for (auto* l : listeners_) l->job_forgotten(id);
  const auto user = key_state(id).spec->user;
  release_key_state(id);
  if (queue_order_->keyed_by_user()) rekey_user(user, now);
}

}  // namespace schedlab::sched
