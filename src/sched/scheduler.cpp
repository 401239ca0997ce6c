// The scheduling pass: queue order, admission, filters, placement as one transaction per
// job, and backfilling past the first blocked job.
#include "sched/scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <tuple>

#include "cluster/resources.h"
#include "pools/pool_book.h"
#include "sched/external/external_policy.h"
#include "util/suggest.h"

namespace schedlab::sched {

namespace {
PartArgs args_for(const SchedulerConfig& c, const std::string& name) {
  auto it = c.args.find(name);
  return it == c.args.end() ? PartArgs{} : it->second;
}

std::string model_list(cluster::ModelMask mask, const cluster::GpuCatalog& catalog) {
  std::vector<std::string> names;
  for (cluster::ModelId m = 0; m < catalog.size(); ++m)
    if (mask >> m & 1) names.push_back(catalog.model(m).name);
  return names.empty() ? std::string("none") : join(names, "|");
}
}  // namespace

Scheduler::Scheduler(const SchedulerConfig& c, const PartRegistry& r, const cluster::Topology& topo,
                     const JobLedger* ledger)
    : topo_(&topo),
      ledger_(ledger ? ledger : &fresh_ledger_),
      // An external policy decides the order itself; the queue keeps (submit, id) order.
      queue_order_(r.queues.make(c.external.command.empty() ? c.queue : "fifo", args_for(c, c.queue))),
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
  std::map<std::tuple<std::size_t, std::uint16_t, std::uint32_t, std::uint32_t>, std::uint64_t> shapes;
  for (cluster::HostId h = 0; h < topo.hosts().size(); ++h) {
    const auto& info = topo.host(h);
    ++shapes[{topo.class_of(h), info.gpus, info.cpu_milli, info.mem_mib}];
  }
  for (const auto& [k, n] : shapes)
    shapes_.push_back(HostShape{std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k), n});
  if (!c.external.command.empty()) {
    external_ = std::make_unique<ExternalPolicy>(c.external, topo);
    external_down_.assign(topo.hosts().size(), 0);
  }
}

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
  cluster::ModelMask allowed = allowed_models(job);
  if (ctx)
    for (const auto& f : filters_) allowed = f->allowed_now(job, allowed, *ctx);
  if (!one_generation(job)) return {allowed};
  // One group per generation, newest first.
  const auto& catalog = topo_->catalog();
  std::vector<int> gens;
  for (cluster::ModelId m = 0; m < catalog.size(); ++m)
    if (allowed >> m & 1) gens.push_back(catalog.model(m).generation);
  std::sort(gens.rbegin(), gens.rend());
  gens.erase(std::unique(gens.begin(), gens.end()), gens.end());
  std::vector<cluster::ModelMask> groups;
  for (int g : gens) {
    if (job.generation != 0 && g != job.generation) continue;  // join the tasks already running
    cluster::ModelMask mask = 0;
    for (cluster::ModelId m = 0; m < catalog.size(); ++m)
      if ((allowed >> m & 1) && catalog.model(m).generation == g) mask |= cluster::ModelMask{1} << m;
    groups.push_back(mask);
  }
  return groups;
}

std::optional<std::string> Scheduler::never_fits(const PendingJob& job) const {
  const auto& s = *job.spec;
  const auto& catalog = topo_->catalog();
  const cluster::TaskNeed need = job.need();
  if (!s.needs_gpu() && need.cpu_milli == 0) return std::string("unresolvable: needs no GPU and no CPU");
  auto groups = placement_groups(job);
  if (groups.size() == 1 && groups[0] == 0) {
    if (!s.needs_gpu())
      return std::string(
          "unresolvable: needs no GPU, and no host may take it (no CPU-only host, and the filters keep it off hosts "
          "with GPUs)");
    return fmt::format("unresolvable: no GPU of the allowed model(s) in the cluster (requested {})",
                       model_list(job.requested, catalog));
  }
  const std::uint32_t g = s.fractional() ? 1 : s.gpus_per_task;  // GPUs a task needs on its host
  // Tasks one host of a shape could hold, alone.
  auto room = [&](const HostShape& h) {
    std::uint64_t n = g ? h.gpus / g : std::numeric_limits<std::uint64_t>::max();
    if (need.cpu_milli) n = std::min<std::uint64_t>(n, h.cpu_milli / need.cpu_milli);
    if (need.mem_mib) n = std::min<std::uint64_t>(n, h.mem_mib / need.mem_mib);
    return n;
  };
  std::uint64_t best_tasks = 0;
  std::uint16_t largest_host = 0;              // most GPUs on one allowed host
  std::uint32_t most_cpu = 0, most_mem = 0;    // most CPUs, memory on one allowed host with a task's GPUs
  bool one_fits = false;                       // some allowed host could hold one task
  for (auto mask : groups) {
    std::uint64_t tasks = 0;
    for (const auto& h : shapes_) {
      if (!topo_->class_in_mask(h.cls, mask) || (g > 0 && h.gpus == 0)) continue;
      largest_host = std::max(largest_host, h.gpus);
      if (h.gpus < g) continue;
      most_cpu = std::max(most_cpu, h.cpu_milli);
      most_mem = std::max(most_mem, h.mem_mib);
      const std::uint64_t r = room(h);
      one_fits = one_fits || r > 0;
      tasks += h.count * std::min<std::uint64_t>(r, std::numeric_limits<std::uint32_t>::max());
    }
    // A share is one task: any host with room for it will do.
    if (tasks >= s.tasks || (s.fractional() && tasks > 0)) return std::nullopt;
    best_tasks = std::max(best_tasks, tasks);
  }
  if (largest_host < g)
    return fmt::format("unresolvable: a task needs {} GPUs on one host; the largest allowed host has {}",
                       s.gpus_per_task, largest_host);
  const char* with_gpus = g ? " with the GPUs" : "";
  if (!one_fits && most_cpu < need.cpu_milli)
    return fmt::format("unresolvable: a task needs {} CPUs on one host; the largest allowed host{} has {}",
                       cluster::cpu_text(need.cpu_milli), with_gpus, cluster::cpu_text(most_cpu));
  if (!one_fits)
    return fmt::format("unresolvable: a task needs {} GB of memory on one host; the largest allowed host{} has {} GB",
                       cluster::mem_gb_text(need.mem_mib), with_gpus, cluster::mem_gb_text(most_mem));
  if (g == 0)
    return fmt::format("unresolvable: needs {} tasks x {} CPUs; the cluster fits at most {}", s.tasks,
                       cluster::cpu_text(need.cpu_milli), best_tasks);
  return fmt::format("unresolvable: needs {} tasks x {} GPUs{}; the cluster fits at most {}", s.tasks,
                     s.gpus_per_task, groups.size() > 1 ? " of one generation" : "", best_tasks);
}

std::optional<std::string> Scheduler::submit(const workload::JobSpec& spec, cluster::ModelMask requested,
                                            engine::Time now) {
  // A GPU request names GPU models; it says nothing against hosts without GPUs.
  requested |= cluster::kHostsWithoutGpus;
  PendingJob job{&spec, requested, spec.tasks};
  job.waiting_since = now;
  job.allowed = allowed_models(job);
  auto why = never_fits(job);
  for (std::size_t a = 0; !why && a < admissions_.size(); ++a) why = admissions_[a]->never_admits(job, pools_);
  if (why) {
    if (pools_) pools_->gone(spec.id);
    return why;
  }
  if (pools_) pools_->waiting(spec, spec.tasks);
  queue_order_->job_submitted(spec);
  if (!workload_expected_) placement_->expect(job);
  auto& ks = new_key_state(spec.id);
  ks.spec = &spec;
  ks.requested = requested;
  ks.key = queue_order_->key(spec, *ledger_, false, now);
  ks.queued = true;
  enqueue(QueueKey{ks.key, spec.id}, job);
  if (external_) external_submitted(job);
  if (queue_order_->keyed_by_user()) user_jobs_[spec.user].push_back(spec.id);
  if (auto t = queue_order_->next_change(spec, *ledger_, false, now); t != engine::kTimeMax)
    timers_.push_back({t, spec.id, ks.version});
  if (auto period = queue_order_->rekey_period(); period > 0 && next_rekey_ == engine::kTimeMax) {
    next_rekey_ = now + period;
    timers_.push_back({next_rekey_, kNoJob, 0});
  }
  return std::nullopt;
}

void Scheduler::expect_workload(const workload::JobSpec& spec, cluster::ModelMask requested) {
  workload_expected_ = true;
  placement_->expect(PendingJob{&spec, requested | cluster::kHostsWithoutGpus, spec.tasks});
}

void Scheduler::enqueue(QueueKey key, const PendingJob& job) {
  auto it = queue_.emplace(key, job).first;
  if (!job.spec->needs_gpu()) ++queued_without_gpu_;
  for (auto* f : queue_watchers_) f->job_waiting(it->second);
}

void Scheduler::dequeue(std::map<QueueKey, PendingJob>::iterator it) {
  if (!it->second.spec->needs_gpu()) --queued_without_gpu_;
  for (auto* f : queue_watchers_) f->job_not_waiting(it->second);
  queue_.erase(it);
}

Scheduler::KeyState& Scheduler::new_key_state(workload::JobId id) {
  if (key_slot_.size() <= id) {
    const std::size_t from = key_slot_.size();
    key_slot_.resize(std::size_t{id} + 1);
    for (std::size_t i = from; i < key_slot_.size(); ++i) key_slot_[i] = kNoKey;
  }
  if (free_keys_.empty()) {
    key_slot_[id] = static_cast<std::uint32_t>(key_pool_.size());
    key_pool_.emplace_back();
  } else {
    key_slot_[id] = free_keys_.back();
    free_keys_.pop_back();
    key_pool_[key_slot_[id]] = KeyState{};
  }
  return key_pool_[key_slot_[id]];
}

void Scheduler::release_key_state(workload::JobId id) {
  free_keys_.push_back(key_slot_[id]);
  key_slot_[id] = kNoKey;
}

void Scheduler::rekey(workload::JobId id, engine::Time now) {
  if (!has_key(id)) return;  // ended
  auto& ks = key_state(id);
  if (!ks.queued && !ks.running) return;
  OrderKey k = queue_order_->key(*ks.spec, *ledger_, ks.running, now);
  if (k != ks.key) {
    ++changes_;
    if (ks.queued) {
      auto node = queue_.extract(QueueKey{ks.key, id});
      node.key() = QueueKey{k, id};
      queue_.insert(std::move(node));
    }
    if (ks.running && preemption_->enabled()) {
      running_by_key_.erase(QueueKey{ks.key, id});
      running_by_key_.insert(QueueKey{k, id});
    }
    ks.key = k;
  }
  ++ks.version;
  if (auto t = queue_order_->next_change(*ks.spec, *ledger_, ks.running, now); t != engine::kTimeMax)
    timers_.push_back({std::max(t, now), id, ks.version});
}

void Scheduler::rekey_user(workload::Label user, engine::Time now) {
  auto it = user_jobs_.find(user);
  if (it == user_jobs_.end()) return;
  auto& ids = it->second;
  // Ended jobs leave the list here, lazily.
  std::erase_if(ids, [&](workload::JobId id) {
    return !has_key(id) || (!key_state(id).queued && !key_state(id).running);
  });
  for (auto id : ids) rekey(id, now);
  if (ids.empty()) user_jobs_.erase(it);
}

void Scheduler::on_timer(workload::JobId id, std::uint32_t version, engine::Time now) {
  if (id == kExternalTimer && external_) {
    external_->timer_due(now);
    return;
  }
  if (id == kNoJob) {
    // Any other instant is a wake-up the preemption pass asked for (a run becomes old
    // enough to evict): the pass that follows every instant is all it needs.
    if (now != next_rekey_) return;
    // Active jobs only (queued or running), in id order: rekeying moves them in the queue.
    std::vector<workload::JobId> active;
    active.reserve(queue_.size() + running_.size());
    for (const auto& [k, job] : queue_) active.push_back(job.id());
    for (const auto& [id, run] : running_) active.push_back(id);
    std::sort(active.begin(), active.end());
    active.erase(std::unique(active.begin(), active.end()), active.end());
    for (auto j : active) rekey(j, now);
    next_rekey_ = ledger_->active_jobs() > 0 || !queue_.empty() || !running_.empty()
                      ? now + queue_order_->rekey_period()
                      : engine::kTimeMax;
    if (next_rekey_ != engine::kTimeMax) timers_.push_back({next_rekey_, kNoJob, 0});
    return;
  }
  if (has_key(id) && key_state(id).version == version) rekey(id, now);
}

void Scheduler::take_timers(std::vector<TimerRequest>& out) {
  out.insert(out.end(), timers_.begin(), timers_.end());
  timers_.clear();
}

bool Scheduler::try_start(PendingJob& job, bool after_block, const SchedContext& ctx, cluster::AllocationState& alloc,
                          std::vector<cluster::TaskSlot>& slots, bool& blocks) {
  bool whole = false;
  blocks = true;
  const bool watched = job.id() == watched_;
  for (std::size_t i = 0; i < admissions_.size(); ++i) {
    const auto& a = admissions_[i];
    if (auto status = a->admit(job, ctx); !status.is_ok()) {
      blocks = a->blocks_queue();
      if (watched) refusal_ = Refusal{"admission " + admission_names_[i], a->refusal(job, ctx, status)};
      return false;
    }
    whole = whole || a->all_or_nothing(job);
  }
  const std::uint32_t need = whole ? job.tasks_left : 1;
  const std::uint64_t per_task = job.spec->fractional() ? 1 : job.spec->gpus_per_task;
  auto backfill_refuses = [&](std::uint64_t gpus) {
    if (backfill_->may_start(job, gpus, ctx)) return false;
    if (watched) refusal_ = Refusal{"backfill " + backfill_name_, backfill_->refusal(job, gpus, ctx)};
    return true;
  };
  // Behind a blocked job, ask the backfill part first (with the fewest GPUs the job could
  // start on): most candidates are refused without a placement attempt.
  if (after_block && backfill_refuses(need * per_task)) return false;
  if (watched) refusal_ = Refusal{"placement " + placement_name_, {}};
  for (auto mask : placement_groups(job, &ctx)) {
    slots.clear();
    cluster::AllocationTransaction tx(alloc);
    placement_->place(job, job.tasks_left, mask, tx, slots);
    if (slots.size() < need) continue;  // discarded: tx rolls back
    if (after_block) {
      std::uint64_t gpus = cluster::gpus_of(slots);
      if (backfill_refuses(gpus)) continue;
      backfill_->started(job, gpus, ctx);
    }
    tx.commit();
    if (one_generation(job) && !slots.empty())
      job.generation = topo_->catalog().model(topo_->host(slots.front().host).model).generation;
    return true;
  }
  slots.clear();
  return false;
}

void Scheduler::schedule(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts) {
  std::vector<StopDecision> stops;
  schedule(now, alloc, starts, stops);
}

void Scheduler::schedule(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
                         std::vector<StopDecision>& stops) {
  if (external_) {
    external_pass(now, alloc, starts, stops);
    return;
  }
  if (pools_ && now >= next_pools_) pools_pass(now, alloc, stops);
  start_pass(now, alloc, starts);
  if (preemption_->enabled()) preempt_pass(now, alloc, starts, stops);
  if (pools_) pools_timer();
}

void Scheduler::record_start(PendingJob& job, std::vector<cluster::TaskSlot>& slots, engine::Time now,
                             std::vector<StartDecision>& starts) {
  job.tasks_left -= static_cast<std::uint32_t>(slots.size());
  const workload::JobId id = job.id();
  if (pools_) pools_->started(*job.spec, static_cast<std::uint32_t>(slots.size()));
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
  if (job.tasks_left == 0 && !stopping_for_.empty()) stopping_for_.erase(id);
  if (fresh) {
    ks.running = true;
    // Only the preemption pass walks running jobs in queue order.
    if (preemption_->enabled()) running_by_key_.insert(QueueKey{ks.key, id});
  }
}

void Scheduler::start_pass(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts) {
  const bool strict = backfill_->max_scan() == 0;
  if (strict && last_block_.valid && !queue_.empty() && queue_.begin()->second.id() == last_block_.job &&
      alloc.release_epoch() == last_block_.epoch)
    return;
  last_block_.valid = false;
  refusal_.reset();
  SchedContext ctx{*topo_, alloc, now, pools_};
  bool blocked = false;
  std::size_t scanned_after_block = 0;
  std::vector<cluster::TaskSlot> slots;
  // The first job that cannot (fully) start: later ones may only backfill around it.
  auto block_on = [&](const PendingJob& job) {
    blocked = true;
    if (!strict) backfill_->on_blocked(job, ctx, running_by_end_);
  };
  for (auto it = queue_.begin(); it != queue_.end();) {
    if (blocked && scanned_after_block++ >= backfill_->max_scan()) break;
    // Nothing can start when no GPU is free and every waiting job needs one.
    if (alloc.free_gpus() == 0 && alloc.shared_gpus() == 0 && queued_without_gpu_ == 0) break;
    PendingJob& job = it->second;
    bool blocks = true;
    if (!try_start(job, blocked, ctx, alloc, slots, blocks)) {
      if (!blocked && blocks) {
        if (strict) last_block_ = {true, job.id(), alloc.release_epoch()};
        block_on(job);
      }
      ++it;
      continue;
    }
    record_start(job, slots, now, starts);
    if (job.tasks_left == 0) {
      key_state(job.id()).queued = false;
      dequeue(it++);
      continue;
    }
    // Partly started: the rest of the job waits, and blocks what follows.
    if (!blocked) block_on(job);
    ++it;
  }
}

void Scheduler::starts_applied(engine::Time now) {
  if (queue_order_->fixed_keys()) {
    started_.clear();
    return;
  }
  // Keys that depend on running (LAS keeps running jobs ahead) or on the user's share move
  // now that the ledger shows the starts; a job started twice in one pass is rekeyed once.
  std::sort(started_.begin(), started_.end());
  started_.erase(std::unique(started_.begin(), started_.end()), started_.end());
  for (auto id : started_) {
    if (!has_key(id)) continue;  // ended since
    rekey(id, now);
    if (queue_order_->keyed_by_user()) rekey_user(key_state(id).spec->user, now);
  }
  started_.clear();
}

void Scheduler::drop_running(workload::JobId id) {
  auto it = running_.find(id);
  if (it == running_.end()) return;
  if (pools_) pools_->released(id);
  ++changes_;
  if (backfill_->max_scan() > 0) running_by_end_.erase(RunningJob{id, it->second.gpus, it->second.expected_end});
  auto& ks = key_state(id);
  if (preemption_->enabled()) running_by_key_.erase(QueueKey{ks.key, id});
  ks.running = false;
  running_.erase(it);
}

void Scheduler::stop_running(workload::JobId id, StopCause cause, workload::JobId by, engine::Time /*now*/,
                             cluster::AllocationState& alloc, std::vector<StopDecision>& stops) {
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
  if (external_ && running_.count(id)) external_->ended(id);
  drop_running(id);
  if (pools_) pools_->gone(id);
  if (!has_key(id)) return;
  const auto user = key_state(id).spec->user;
  release_key_state(id);
  if (queue_order_->keyed_by_user()) rekey_user(user, now);
}

void Scheduler::job_stopped(workload::JobId id, StopCause cause) {
  if (external_) external_stopped(id, cause);
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
  if (external_) external_->requeued(id);
  if (pools_) pools_->waiting(spec, spec.tasks);
  last_block_.valid = false;
  ++changes_;
  if (auto t = queue_order_->next_change(spec, *ledger_, false, now); t != engine::kTimeMax)
    timers_.push_back({std::max(t, now), id, ks.version});
  if (queue_order_->keyed_by_user()) rekey_user(spec.user, now);
}

void Scheduler::forget(workload::JobId id, engine::Time now) {
  if (external_) external_->gone(id);
  unrun(id);
  if (pools_) pools_->gone(id);
  const auto user = key_state(id).spec->user;
  release_key_state(id);
  if (queue_order_->keyed_by_user()) rekey_user(user, now);
}

const char* cause_name(StopCause c) {
  switch (c) {
    case StopCause::preempted: return "preempted";
    case StopCause::host_failed: return "host failed";
    case StopCause::gpu_failed: return "GPU failed";
    case StopCause::task_failed: return "task failed";
    case StopCause::reclaimed: return "reclaimed by its pool";
    case StopCause::killed: return "killed";
  }
  return "?";
}

}  // namespace schedlab::sched
