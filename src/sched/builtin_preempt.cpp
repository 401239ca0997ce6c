// The built-in preemption pass: after the start pass, running jobs may be stopped (as whole gangs)
// so that better-keyed waiting jobs start. The preemption part says whom a waiting job may
// evict and in which order; this pass owns the dry run, the stops and the starts.
//
// Waiting jobs are taken in queue order. For each, the running jobs it outranks are freed,
// worst first, inside an allocation transaction until the job places (a placement attempt
// only once enough GPUs of its models are free); then victims are reprieved, best first,
// while it still places without them (Kubernetes' reprieve). Only then are the remaining
// victims stopped, and the job started at once when their GPUs were freed at once. The pass
// ends at the first waiting job that cannot place even with every run it outranks gone
// (later, worse jobs do not take what it would need), and at a job still waiting for its
// victims' checkpoint saves (it evicts no more for itself meanwhile). The cost is that of
// the victims walked: a pass with nothing to preempt compares one waiting key with the
// worst running key and stops.
#include <algorithm>
#include <cassert>

#include "sched/builtin_passes.h"
#include "util/checked.h"

namespace schedlab::sched {

namespace {
// GPUs the job needs to place the tasks it needs now: a necessary condition checked
// before any placement attempt (0 for fractional jobs, whose shares may fit on used GPUs).
std::uint64_t gpus_needed(const PendingJob& job, std::uint32_t tasks) {
  return job.spec->fractional() ? 0 : std::uint64_t{tasks} * job.spec->gpus_per_task;
}
// From this many victims the reprieve frees them all once and takes each trial's back
// (2V frees and takes instead of V^2); below it the per-trial frees cost less.
constexpr std::size_t kFreeOnceFrom = 4;
}  // namespace

bool BuiltinPasses::places_now(const PendingJob& job, std::uint32_t need, engine::Time now,
                               cluster::AllocationState& alloc) {
  if (alloc.free_gpus(job.allowed) < gpus_needed(job, need)) return false;
  // Admission sees the state as the dry run left it (a gang counts its victims' GPUs).
  SchedContext ctx{*s_.topo_, alloc, now, s_.pool_book()};
  for (const auto& a : s_.admissions_)
    if (!a->admit(job, ctx).is_ok()) return false;
  s_.placement_groups(job, &ctx, groups_);
  for (auto mask : groups_) {
    dry_slots_.clear();
    cluster::AllocationTransaction tx(alloc);  // always rolled back: a question only
    s_.placement_->place(job, job.tasks_left, mask, tx, dry_slots_);
    if (dry_slots_.size() >= need) return true;
  }
  return false;
}

bool BuiltinPasses::eligible_victim(workload::JobId id, engine::Time now, engine::Time& eligible_at) const {
  const auto& life = s_.ledger_->life(id);
  // Started in this pass (its start not applied yet) or not running: not a victim.
  if (life.state != JobState::running || life.run_start < 0) return false;
  if (auto it = s_.running_.find(id); it != s_.running_.end() && !it->second.spec->preemptible) return false;
  if (std::binary_search(started_now_.begin(), started_now_.end(), id)) return false;
  // min_run_s, and never before a stop would keep some of the run's work (thrash guard).
  const engine::Time from =
      std::max(util::add_time(life.run_start, s_.preemption_->min_run()), s_.ledger_->keeps_work_from(id, now));
  if (from > now) {
    eligible_at = std::min(eligible_at, from);
    return false;
  }
  return true;
}

bool BuiltinPasses::choose_victims(const PendingJob& job, std::uint32_t need, engine::Time now,
                                   cluster::AllocationState& alloc, std::vector<workload::JobId>& victims,
                                   engine::Time& eligible_at) {
  victims.clear();
  const OrderKey key = s_.key_state(job.id()).key;
  auto& freed = freed_;  // in the order the dry run freed them
  auto& group = group_;
  auto& held = held_;
  freed.clear();
  bool placed = false;
  // Until the candidates' GPUs (an upper bound: all their GPUs, of any model) and the free
  // ones could make the job's count, no slot is touched: a job that cannot be helped costs a
  // walk of counts only.
  const std::uint64_t need_gpus = gpus_needed(job, need);
  const std::uint64_t base_free = alloc.free_gpus(job.allowed);
  // A part that judges the job by its pool's book (admission pools) sees no dry run: when it
  // refuses the job now, it refuses it with every victim freed, and the walk below only
  // notes the runs too young to evict (for the wake-up), taking none as a candidate.
  bool refused_by_pool = false;
  {
    const SchedContext ctx{*s_.topo_, alloc, now, s_.pool_book()};
    for (const auto& a : s_.admissions_)
      if (a->refuses_over_pool() && !a->admit(job, ctx).is_ok()) refused_by_pool = true;
  }
  std::uint64_t reach = 0;
  std::size_t released = 0;
  {
    cluster::AllocationTransaction tx(alloc);
    auto it = s_.running_by_key_.rbegin();
    const auto end = s_.running_by_key_.rend();
    auto same_rank = [&](const OrderKey& a, const OrderKey& b) {
      return !s_.preemption_->outranks(a, b) && !s_.preemption_->outranks(b, a);
    };
    while (!placed) {
      // The next group of equal rank from the worst end, eligible runs only.
      group.clear();
      bool first = true;
      OrderKey rank;
      for (; it != end; ++it) {
        const auto& [k, id] = *it;
        if (!s_.preemption_->outranks(key, k)) {
          it = end;  // monotone: no better running job is outranked either
          break;
        }
        if (first) {
          rank = k;
          first = false;
        } else if (!same_rank(rank, k)) {
          break;
        }
        if (eligible_victim(id, now, eligible_at) && !refused_by_pool)
          group.push_back({id, k, s_.ledger_->life(id).run_start});
      }
      if (group.empty()) {
        if (it == end) break;
        continue;  // a whole group too young to evict: on to the next
      }
      std::sort(group.begin(), group.end(), [&](const EvictionCandidate& a, const EvictionCandidate& b) {
        return s_.preemption_->evict_first(a, b);
      });
      for (const auto& c : group) {
        freed.push_back(c);
        reach += s_.running_.at(c.id).gpus;
        if (base_free + reach < need_gpus) continue;
        for (; released < freed.size(); ++released) {
          s_.ledger_->held_slots(freed[released].id, held);
          for (const auto& t : held) tx.release(t);
        }
        if (places_now(job, need, now, alloc)) {
          placed = true;
          break;
        }
      }
    }
  }  // the transaction rolls back: nothing has changed yet
  if (!placed) return false;
  // Reprieve, best first: keep each victim the job can place without. The last one freed is
  // needed (without it the job did not place), so it is not tried.
  std::vector<bool> kept(freed.size(), false);
  bool tried = false;
  if (freed.size() >= kFreeOnceFrom) {
    // Each victim's slots, read once: slots[first[j], first[j + 1]) are freed[j]'s.
    std::vector<cluster::TaskSlot> slots;
    std::vector<std::size_t> first{0};
    bool shares = false;
    for (const auto& c : freed) {
      s_.ledger_->held_slots(c.id, held);
      for (const auto& t : held) shares = shares || t.milli != 0;
      slots.insert(slots.end(), held.begin(), held.end());
      first.push_back(slots.size());
    }
    // A share taken back may land on another shared GPU slot than it left: shares keep the
    // frees below. Whole-GPU takes and releases are exact inverses and the state is counts and
    // host sets, so every trial here sees the state the frees below would give.
    if (!shares) {
      // Every victim freed once; a trial takes victim i back, and gives it up again when the
      // job cannot do without it.
      cluster::AllocationTransaction tx(alloc);  // rolled back at the end: a question only
      for (const auto& t : slots) tx.release(t);
      for (std::size_t i = freed.size() - 1; i-- > 0;) {
        for (std::size_t k = first[i]; k < first[i + 1]; ++k) tx.take(slots[k]);
        kept[i] = places_now(job, need, now, alloc);
        if (!kept[i])
          for (std::size_t k = first[i]; k < first[i + 1]; ++k) tx.release(slots[k]);
      }
      tried = true;
    }
  }
  // Few victims (or shares): each trial frees the others anew (V^2 frees, cheap for small V).
  for (std::size_t i = freed.size() - 1; !tried && i-- > 0;) {
    cluster::AllocationTransaction tx(alloc);
    for (std::size_t j = 0; j < freed.size(); ++j) {
      if (j == i || kept[j]) continue;
      s_.ledger_->held_slots(freed[j].id, held);
      for (const auto& t : held) tx.release(t);
    }
    kept[i] = places_now(job, need, now, alloc);
  }
  for (std::size_t j = 0; j < freed.size(); ++j)
    if (!kept[j]) victims.push_back(freed[j].id);
  return true;
}

void BuiltinPasses::preempt_pass(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
                                 std::vector<StopDecision>& stops) {
  if (s_.queue_.empty() || s_.running_by_key_.empty()) return;
  if (s_.queue_order_->drifts_while_running()) {
    // SRTF-like keys move while jobs run: bring running keys up to date before comparing.
    std::vector<workload::JobId> ids;
    for (const auto& [k, id] : s_.running_by_key_) ids.push_back(id);
    for (auto id : ids) s_.rekey(id, now);
  }
  // Nothing changed since the head last failed to find victims: it would fail again.
  if (preempt_block_.valid && s_.queue_.begin()->second.id() == preempt_block_.job &&
      s_.changes_ == preempt_block_.changes && alloc.release_epoch() == preempt_block_.epoch &&
      now < preempt_block_.retry_at)
    return;
  preempt_block_.valid = false;

  started_now_.clear();
  for (const auto& s : starts) started_now_.push_back(s.job);
  std::sort(started_now_.begin(), started_now_.end());

  SchedContext ctx{*s_.topo_, alloc, now, s_.pool_book()};
  std::vector<workload::JobId> victims;
  std::vector<cluster::TaskSlot> slots;
  bool changed = false;  // a stop or start in this pass: jobs the start pass refused may fit now
  for (auto it = s_.queue_.begin(); it != s_.queue_.end();) {
    PendingJob& job = it->second;
    const workload::JobId id = job.id();
    if (auto w = stopping_for_.find(id); w != stopping_for_.end()) {
      const bool saving = std::any_of(w->second.begin(), w->second.end(), [&](workload::JobId v) {
        return s_.ledger_->life(v).state == JobState::stopping;
      });
      if (saving) break;  // its victims' GPUs are coming: it evicts no more, and keeps its claim
      stopping_for_.erase(w);
    }
    const bool whole = std::any_of(s_.admissions_.begin(), s_.admissions_.end(),
                                   [&](const auto& a) { return a->all_or_nothing(job); });
    const std::uint32_t need = whole ? job.tasks_left : 1;
    engine::Time eligible_at = engine::kTimeMax;
    victims.clear();
    // The start pass placed nothing for this job; only after a change in this pass may it
    // fit without victims.
    const bool fits = changed && places_now(job, need, now, alloc);
    if (!fits && !choose_victims(job, need, now, alloc, victims, eligible_at)) {
      preempt_block_ = {true, id, s_.changes_, alloc.release_epoch(), eligible_at};
      // A run that becomes old enough to evict may change the answer: wake then.
      if (eligible_at != engine::kTimeMax && (wake_at_ <= now || eligible_at < wake_at_)) {
        wake_at_ = eligible_at;
        s_.timers_.push_back({eligible_at, kNoJob, 0});
      }
      break;
    }
    bool all_freed = true;
    std::vector<workload::JobId> saving;
    for (auto v : victims) {
      s_.stop_running(v, StopCause::preempted, id, alloc, stops);
      if (!stops.back().released) {
        all_freed = false;
        saving.push_back(v);
      }
    }
    changed = true;
    if (!all_freed) {
      stopping_for_[id] = std::move(saving);
      break;
    }
    // The victims' GPUs are free now: the job starts in this pass.
    if (bool blocks = true; !try_start(job, false, ctx, alloc, slots, blocks)) {
      assert(false && "the dry run placed this job");
      break;
    }
    s_.record_start(job, slots, now, starts);
    started_now_.insert(std::upper_bound(started_now_.begin(), started_now_.end(), id), id);
    if (job.tasks_left == 0) {
      s_.key_state(id).queued = false;
      s_.dequeue(it++);
      continue;
    }
    ++it;  // partly started: the rest of its tasks wait
  }
  // Started jobs are rekeyed in starts_applied(), once the simulation has recorded them.
}

}  // namespace schedlab::sched
