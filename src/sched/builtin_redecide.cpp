// The built-in re-decision walk (reorder `pass: redecide`): the Tiresias simulator's decision at
// every event (docs/policies.md, D1, D4, D5), as one walk instead of a start pass and a
// preemption pass. Running and waiting jobs are taken together in queue order with the GPUs that
// could be freed counted as free; each job whose GPUs still fit the count runs (a waiting one
// starts, a running one keeps its GPUs), every other is skipped (a running one is preempted), and
// the walk goes on to the end: no job blocks the ones behind it and no victim is reprieved.
// GPUs are counted, not placed: the walk is exact where any free GPU will do (one task per GPU,
// or a cluster of one GPU model placed first-fit); a job the placement then cannot place waits.
// Runs that may not be evicted now (not preemptible, younger than min_run_s, saving a checkpoint)
// keep their GPUs outside the count.
#include <algorithm>
#include <map>

#include "sched/builtin_passes.h"

namespace schedlab::sched {

void BuiltinPasses::redecide_pass(engine::Time now, cluster::AllocationState& alloc,
                                  std::vector<StartDecision>& starts, std::vector<StopDecision>& stops) {
  if (s_.queue_.empty()) return;  // every job runs already: nothing to decide
  started_now_.clear();
  engine::Time eligible_at = engine::kTimeMax;
  std::uint64_t budget = alloc.free_gpus();
  std::vector<workload::JobId> evictable;
  for (const auto& [k, id] : s_.running_by_key_)
    if (eligible_victim(id, now, eligible_at)) {
      evictable.push_back(id);
      budget += s_.running_.at(id).gpus;
    }
  std::sort(evictable.begin(), evictable.end());
  auto may_evict = [&](workload::JobId id) { return std::binary_search(evictable.begin(), evictable.end(), id); };

  // The walk, over both maps merged by key (equal keys cannot occur: the key ends with the id).
  std::vector<workload::JobId> victims;
  std::vector<std::map<Scheduler::QueueKey, PendingJob>::iterator> to_start;
  auto run = s_.running_by_key_.begin();
  auto wait = s_.queue_.begin();
  while (run != s_.running_by_key_.end() || wait != s_.queue_.end()) {
    if (wait == s_.queue_.end() || (run != s_.running_by_key_.end() && *run < wait->first)) {
      const workload::JobId id = run->second;
      ++run;
      if (!may_evict(id)) continue;
      const std::uint64_t gpus = s_.running_.at(id).gpus;
      if (gpus <= budget)
        budget -= gpus;
      else
        victims.push_back(id);
      continue;
    }
    const PendingJob& job = wait->second;
    const std::uint64_t gpus = job.spec->fractional() ? 0 : std::uint64_t{job.tasks_left} * job.spec->gpus_per_task;
    if (gpus <= budget) {
      budget -= gpus;
      to_start.push_back(wait);
    }
    ++wait;
  }
  if (eligible_at != engine::kTimeMax && (wake_at_ <= now || eligible_at < wake_at_)) {
    wake_at_ = eligible_at;  // a run becomes old enough to evict: the count changes then
    s_.timers_.push_back({eligible_at, kNoJob, 0});
  }
  // Victims first, so that their GPUs are free for the starts; each is charged to the first
  // job that starts (the simulator names no preemptor).
  const workload::JobId by = to_start.empty() ? kNoJob : to_start.front()->second.id();
  for (auto v : victims) s_.stop_running(v, StopCause::preempted, by, alloc, stops);
  SchedContext ctx{*s_.topo_, alloc, now, s_.pool_book()};
  std::vector<cluster::TaskSlot> slots;
  for (auto it : to_start) {
    PendingJob& job = it->second;
    bool blocks = true;
    if (!try_start(job, false, ctx, alloc, slots, blocks)) continue;  // counted, not placed: it waits
    s_.record_start(job, slots, now, starts);
    if (job.tasks_left == 0) {
      s_.key_state(job.id()).queued = false;
      s_.dequeue(it);
    }
  }
}

}  // namespace schedlab::sched
