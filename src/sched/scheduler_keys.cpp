// The queue keys: the per-job key records (a slot per job the scheduler holds), rekeying
// when a key's inputs change (a start applied, a user's share moved, the queue order's
// period), and the timers a key asks for when it will change at a known instant (a LAS
// demotion) instead of being polled.
#include <algorithm>

#include "sched/decision_step.h"
#include "sched/scheduler.h"

namespace schedlab::sched {

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
      move_in_queue(QueueKey{ks.key, id}, QueueKey{k, id});
    }
    if (ks.running && preemption_->enabled()) {
      // The node moves to its new place: no free and allocation per rekey.
      auto node = running_by_key_.extract(QueueKey{ks.key, id});
      node.value() = QueueKey{k, id};
      running_by_key_.insert(std::move(node));
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
  std::erase_if(ids,
                [&](workload::JobId id) { return !has_key(id) || (!key_state(id).queued && !key_state(id).running); });
  for (auto id : ids) rekey(id, now);
  if (ids.empty()) user_jobs_.erase(it);
}

void Scheduler::on_timer(workload::JobId id, std::uint32_t version, engine::Time now) {
  if (id == kExternalTimer) {
    step_->own_timer(now);
    return;
  }
  if (id == kNoJob) {
    // Any other instant is a wake-up the preemption pass asked for (a run becomes old
    // enough to evict): the pass that follows every instant is all it needs.
    if (now == next_rekey_) rekey_all(now);
    return;
  }
  if (has_key(id) && key_state(id).version == version) {
    if (queue_order_->rekeys_running_at_events())
      event_news_ = true;  // the pass rekeys every running job
    else
      rekey(id, now);
  }
}

void Scheduler::rekey_running(engine::Time now) {
  std::vector<workload::JobId> ids;
  ids.reserve(running_.size());
  for (const auto& [id, run] : running_) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  for (auto id : ids) rekey(id, now);
}

void Scheduler::rekey_all(engine::Time now) {
  // Active jobs only (queued or running), in id order: rekeying moves them in the queue.
  std::vector<workload::JobId> active;
  active.reserve(queue_.size() + running_.size());
  for (const auto& [k, job] : queue_) active.push_back(job.id());
  for (const auto& [id, run] : running_) active.push_back(id);
  std::sort(active.begin(), active.end());
  active.erase(std::unique(active.begin(), active.end()), active.end());
  for (auto j : active) rekey(j, now);
  next_rekey_ = ledger_->active_jobs() > 0 || !queue_.empty() || !running_.empty() ? now + queue_order_->rekey_period()
                                                                                   : engine::kTimeMax;
  if (next_rekey_ != engine::kTimeMax) timers_.push_back({next_rekey_, kNoJob, 0});
}

void Scheduler::move_waiting_behind_running(const std::vector<StopDecision>& stops) {
  // No start, stop, end, requeue or key change since the last move: the list is as it was left.
  if (changes_ == moved_behind_at_) return;
  // The waiting jobs, and those stopped in this pass: they wait too (the caller requeues them
  // after the pass, with the key their place gives), among the others in key order.
  std::vector<QueueKey> waiting;
  waiting.reserve(queue_.size() + stops.size());
  for (const auto& [k, job] : queue_) waiting.push_back(k);
  for (const auto& d : stops)
    if (has_key(d.job) && !key_state(d.job).queued) waiting.emplace_back(key_state(d.job).key, d.job);
  std::sort(waiting.begin(), waiting.end());
  for (const auto& [old, id] : waiting) {
    auto& ks = key_state(id);
    const OrderKey k = queue_order_->behind_running(*ks.spec, old);
    if (k == old) continue;
    if (ks.queued) {
      move_in_queue(QueueKey{old, id}, QueueKey{k, id});
    }
    ks.key = k;
  }
  moved_behind_at_ = changes_;
}

void Scheduler::take_timers(std::vector<TimerRequest>& out) {
  out.insert(out.end(), timers_.begin(), timers_.end());
  timers_.clear();
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

}  // namespace schedlab::sched
