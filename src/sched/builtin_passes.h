// The built-in decision step: the scenario's parts run as passes over the scheduler's queue.
// At an entitlement period of the pools, entitlements are recomputed and the preemption part
// may reclaim; then the start pass (queue order, admission, filters, placement as one
// transaction per job, backfilling past the first blocked job); then, when the preemption
// part is enabled, the preemption pass (builtin_preempt.cpp). It listens to job events for
// what its memos depend on.
#pragma once

#include <unordered_map>
#include <vector>

#include "sched/decision_step.h"
#include "sched/job_listener.h"
#include "sched/scheduler.h"

namespace schedlab::sched {

class BuiltinPasses final : public DecisionStep, public JobListener {
 public:
  explicit BuiltinPasses(Scheduler& s) : s_(s) {}

  void decide(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
              std::vector<StopDecision>& stops) override;

  void tasks_started(const PendingJob& job, std::uint32_t tasks) override;
  void job_requeued(const PendingJob& job) override;

 private:
  // Recomputes the pools' entitlements and lets the preemption part reclaim.
  void entitlement_period(engine::Time now, cluster::AllocationState& alloc, std::vector<StopDecision>& stops);
  // The placement pass in queue order (with backfill past the first blocked job).
  void start_pass(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts);
  // Tries to start the job's tasks now; fills `slots` and returns true on success. On
  // failure, `blocks` says whether the job holds up the queue behind it (it does, unless an
  // admission part refused it for its pool's share).
  bool try_start(PendingJob& job, bool after_block, const SchedContext& ctx, cluster::AllocationState& alloc,
                 std::vector<cluster::TaskSlot>& slots, bool& blocks);
  // The preemption pass (builtin_preempt.cpp): stops running jobs to start better ones.
  void preempt_pass(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
                    std::vector<StopDecision>& stops);
  // The re-decision walk (builtin_redecide.cpp) in place of both passes when the preemption
  // part redecides(): the whole running set decided by GPU count in one walk in queue order.
  void redecide_pass(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
                     std::vector<StopDecision>& stops);
  // Would the job be admitted and `need` of its tasks place now? A dry run, always rolled back.
  bool places_now(const PendingJob& job, std::uint32_t need, engine::Time now, cluster::AllocationState& alloc);
  // May this running job be evicted now? If only min_run forbids it, lowers `eligible_at`
  // to the instant it may.
  bool eligible_victim(workload::JobId id, engine::Time now, engine::Time& eligible_at) const;
  // The running jobs to stop so that the waiting job places (a dry run, rolled back);
  // false, with nothing chosen, when even every job it outranks would not do.
  bool choose_victims(const PendingJob& job, std::uint32_t need, engine::Time now, cluster::AllocationState& alloc,
                      std::vector<workload::JobId>& victims, engine::Time& eligible_at);

  Scheduler& s_;
  // In strict order, the job that blocked the last pass and the release epoch it saw: if
  // both are unchanged the pass would fail the same way, and is skipped.
  struct Blocked {
    bool valid = false;
    workload::JobId job = 0;
    std::uint64_t epoch = 0;
  } last_block_;
  // The head that last found no victims, and what it saw (Scheduler::changes_, the release
  // epoch): it is not tried again until one of them moved.
  struct PreemptBlocked {
    bool valid = false;
    workload::JobId job = 0;
    std::uint64_t changes = 0;
    std::uint64_t epoch = 0;
    engine::Time retry_at = engine::kTimeMax;  // a run becomes old enough to evict
  } preempt_block_;
  engine::Time wake_at_ = engine::kTimeMax;  // the latest wake-up timer asked for
  // Preemptors whose victims are still saving a checkpoint, and those victims.
  std::unordered_map<workload::JobId, std::vector<workload::JobId>> stopping_for_;
  std::vector<workload::JobId> started_now_;  // jobs started in this pass, sorted
  // Buffers of one placement attempt and one dry run, kept so that they allocate nothing.
  std::vector<cluster::ModelMask> groups_;
  std::vector<cluster::TaskSlot> dry_slots_, held_;
  std::vector<EvictionCandidate> freed_, group_;
};

}  // namespace schedlab::sched
