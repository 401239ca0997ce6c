// The built-in decision step's start pass: queue order, admission, filters, placement as one
// transaction per job, and backfilling past the first blocked job; and the pools' period.
#include "sched/builtin_passes.h"

#include <optional>

#include "cluster/resources.h"
#include "sched/pools_listener.h"

namespace schedlab::sched {

namespace {
// The most wholly free GPUs on one host, of any model: a task that needs more places nowhere.
std::uint64_t largest_free_on_a_host(const cluster::AllocationState& alloc) {
  const auto& topo = alloc.topology();
  std::uint64_t most = 0;
  for (cluster::ModelId m = 0; m < topo.catalog().size(); ++m)
    for (std::uint16_t k = topo.max_host_gpus(m); k > most; --k)
      if (!alloc.hosts_with_free(m, k).empty()) {
        most = k;
        break;
      }
  return most;
}
}  // namespace

void BuiltinPasses::decide(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
                           std::vector<StopDecision>& stops) {
  if (s_.pools_ && s_.pools_->period_due(now)) entitlement_period(now, alloc, stops);
  if (s_.preemption_->redecides()) {
    redecide_pass(now, alloc, starts, stops);
  } else {
    start_pass(now, alloc, starts);
    if (s_.preemption_->enabled()) preempt_pass(now, alloc, starts, stops);
  }
  if (s_.pools_) s_.pools_->ask_timer(!s_.running_.empty(), s_.timers_);
}

void BuiltinPasses::tasks_started(const PendingJob& job, std::uint32_t /*tasks*/) {
  if (job.tasks_left == 0 && !stopping_for_.empty()) stopping_for_.erase(job.id());
}

void BuiltinPasses::job_requeued(const PendingJob& /*job*/) { last_block_.valid = false; }

void BuiltinPasses::entitlement_period(engine::Time now, cluster::AllocationState& alloc,
                                       std::vector<StopDecision>& stops) {
  s_.pools_->recompute(*s_.topo_, alloc, now);
  last_block_.valid = false;  // what a pool may start has changed
  // The running jobs are listed only when a pool is due a reclaim (first call, before any
  // stop): walking them at every period cost a sixth of a pooled run.
  std::vector<const workload::JobSpec*> running;
  bool listed = false;
  auto list_running = [&]() -> const std::vector<const workload::JobSpec*>& {
    if (!listed) {
      running.reserve(s_.running_.size());
      for (const auto& [id, run] : s_.running_) running.push_back(run.spec);
      listed = true;
    }
    return running;
  };
  s_.preemption_->entitlement_period(s_.pools_->book(), *s_.ledger_, list_running, [&](workload::JobId id) {
    s_.stop_running(id, StopCause::reclaimed, kNoJob, alloc, stops);
  });
}

bool BuiltinPasses::try_start(PendingJob& job, bool after_block, const SchedContext& ctx,
                              cluster::AllocationState& alloc, std::vector<cluster::TaskSlot>& slots, bool& blocks) {
  bool whole = false;
  blocks = true;
  const bool watched = job.id() == s_.watched_;
  for (std::size_t i = 0; i < s_.admissions_.size(); ++i) {
    const auto& a = s_.admissions_[i];
    if (auto status = a->admit(job, ctx); !status.is_ok()) {
      blocks = a->blocks_queue();
      if (watched)
        s_.refusal_ = Scheduler::Refusal{"admission " + s_.admission_names_[i], a->refusal(job, ctx, status)};
      return false;
    }
    whole = whole || a->all_or_nothing(job);
  }
  const std::uint32_t need = whole ? job.tasks_left : 1;
  const std::uint64_t per_task = job.spec->fractional() ? 1 : job.spec->gpus_per_task;
  auto& backfill = *s_.backfill_;
  auto backfill_refuses = [&](std::uint64_t gpus) {
    if (backfill.may_start(job, gpus, ctx)) return false;
    if (watched) s_.refusal_ = Scheduler::Refusal{"backfill " + s_.backfill_name_, backfill.refusal(job, gpus, ctx)};
    return true;
  };
  // Behind a blocked job, ask the backfill part first (with the fewest GPUs the job could
  // start on): most candidates are refused without a placement attempt.
  if (after_block && backfill_refuses(need * per_task)) return false;
  if (watched) s_.refusal_ = Scheduler::Refusal{"placement " + s_.placement_name_, {}};
  s_.placement_groups(job, &ctx, groups_);
  for (auto mask : groups_) {
    slots.clear();
    cluster::AllocationTransaction tx(alloc);
    s_.placement_->place(job, job.tasks_left, mask, tx, slots);
    if (slots.size() < need) continue;  // discarded: tx rolls back
    if (after_block) {
      std::uint64_t gpus = cluster::gpus_of(slots);
      if (backfill_refuses(gpus)) continue;
      backfill.started(job, gpus, ctx);
    }
    tx.commit();
    if (s_.one_generation(job) && !slots.empty())
      job.generation = s_.topo_->catalog().model(s_.topo_->host(slots.front().host).model).generation;
    return true;
  }
  slots.clear();
  return false;
}

void BuiltinPasses::start_pass(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts) {
  auto& queue = s_.queue_;
  auto& backfill = *s_.backfill_;
  const bool strict = backfill.max_scan() == 0;
  if (strict && last_block_.valid && !queue.empty() && queue.begin()->second.id() == last_block_.job &&
      alloc.release_epoch() == last_block_.epoch)
    return;
  last_block_.valid = false;
  s_.refusal_.reset();
  SchedContext ctx{*s_.topo_, alloc, now, s_.pool_book()};
  std::vector<cluster::TaskSlot> slots;
  // Nothing can start when no GPU is free and every waiting job needs one.
  auto nothing_fits = [&] { return alloc.free_gpus() == 0 && alloc.shared_gpus() == 0 && s_.queued_without_gpu_ == 0; };
  // The job's tasks that can start now start; true when the job left the queue.
  auto record = [&](std::map<Scheduler::QueueKey, PendingJob>::iterator it) {
    s_.record_start(it->second, slots, now, starts);
    if (it->second.tasks_left > 0) return false;
    s_.key_state(it->second.id()).queued = false;
    s_.dequeue(it);
    return true;
  };
  // In queue order up to the first job that cannot (fully) start. Under admission pools, the
  // jobs of a pool that refuses them all are passed over unasked (PoolLanes): only the
  // lanes' closing changes, and only when a job starts.
  const PendingJob* blocker = nullptr;
  Scheduler::QueueKey after;  // the blocked job's key
  const bool by_lanes = s_.use_lanes_;
  std::optional<LaneRefusals> lanes;  // made only under pools: a pass without pays nothing
  if (by_lanes) lanes = s_.lane_refusals();
  auto it = queue.begin();
  if (by_lanes) {
    const auto first = s_.need_index_.next_to_try(nullptr, *lanes, s_.watched_, alloc);
    it = first ? queue.find(*first) : queue.end();
  }
  while (it != queue.end() && !blocker) {
    if (nothing_fits()) return;
    PendingJob& job = it->second;
    const auto at = it->first;
    bool blocks = true;
    bool started = try_start(job, false, ctx, alloc, slots, blocks);
    if (!started && blocks) {
      if (strict) last_block_ = {true, job.id(), alloc.release_epoch()};
      blocker = &job;
    }
    // Partly started: the rest of the job waits, and blocks what follows.
    if (!started)
      ++it;
    else if (!record(it++))
      blocker = &job;
    if (started || blocker) after = at;
    if (!by_lanes || blocker) continue;
    if (started) lanes = s_.lane_refusals();
    // Usually the next job or close behind it; else a search.
    auto next = s_.need_index_.next_to_try(&at, *lanes, s_.watched_, alloc);
    if (!next) break;
    for (int step = 0; step < 2 && it != queue.end() && it->first != *next; ++step) ++it;
    if (it == queue.end() || it->first != *next) it = queue.find(*next);
  }
  if (!blocker || strict) return;
  // Later jobs may only backfill around it: the next `max_scan` jobs in queue order are
  // considered, those the need index rules out (too big for the free GPUs, or refused by the
  // backfill part whatever their placement) counted without a look.
  backfill.on_blocked(*blocker, ctx, s_.running_by_end_);
  std::size_t budget = backfill.max_scan();
  auto succ = std::next(queue.find(after));  // the job after the last one looked at
  // What rules jobs out changes only when one starts.
  auto rule_now = [&] {
    const Backfill::Limit limit = backfill.limit();
    if (by_lanes) lanes = s_.lane_refusals();
    return BackfillRule{alloc.free_gpus(), largest_free_on_a_host(alloc), limit.spare, now, limit.ends_by,
                        s_.watched_, by_lanes ? &*lanes : nullptr};
  };
  BackfillRule rule = rule_now();
  while (!nothing_fits()) {
    const auto next = s_.need_index_.next(after, budget, rule);
    if (!next) return;
    after = *next;
    // Usually the next job or close behind it; else a search.
    auto it = succ;
    for (int step = 0; step < 2 && it != queue.end() && it->first != after; ++step) ++it;
    if (it == queue.end() || it->first != after) it = queue.find(after);
    succ = std::next(it);
    bool blocks = true;
    if (!try_start(it->second, true, ctx, alloc, slots, blocks)) continue;
    record(it);
    rule = rule_now();
  }
}

}  // namespace schedlab::sched
