// The built-in decision step's start pass: queue order, admission, filters, placement as one
// transaction per job, and backfilling past the first blocked job; and the pools' period.
#include "sched/builtin_passes.h"

#include "cluster/resources.h"
#include "sched/pools_listener.h"

namespace schedlab::sched {

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
  for (auto mask : s_.placement_groups(job, &ctx)) {
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
  bool blocked = false;
  std::size_t scanned_after_block = 0;
  std::vector<cluster::TaskSlot> slots;
  // The first job that cannot (fully) start: later ones may only backfill around it.
  auto block_on = [&](const PendingJob& job) {
    blocked = true;
    if (!strict) backfill.on_blocked(job, ctx, s_.running_by_end_);
  };
  for (auto it = queue.begin(); it != queue.end();) {
    if (blocked && scanned_after_block++ >= backfill.max_scan()) break;
    // Nothing can start when no GPU is free and every waiting job needs one.
    if (alloc.free_gpus() == 0 && alloc.shared_gpus() == 0 && s_.queued_without_gpu_ == 0) break;
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
    s_.record_start(job, slots, now, starts);
    if (job.tasks_left == 0) {
      s_.key_state(job.id()).queued = false;
      s_.dequeue(it++);
      continue;
    }
    // Partly started: the rest of the job waits, and blocks what follows.
    if (!blocked) block_on(job);
    ++it;
  }
}

}  // namespace schedlab::sched
