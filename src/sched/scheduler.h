// The scheduler: a composition of named parts (queue order, admission, filters, placement,
// preemption, backfill) chosen by a SchedulerConfig. It keeps the pending queue, the jobs'
// queue keys and the running records, and once per instant lets its decision step (the
// built-in passes, or an external policy: decision_step.h) choose which jobs (or tasks)
// start where and which stop. Whoever keeps records of their own (pools, an external
// policy) listens to its job events (job_listener.h). It never reads a clock or a file: the
// simulator and the emulator drive it the same way.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "sched/decisions.h"
#include "sched/never_fits.h"
#include "sched/parts.h"
#include "sched/queue_need_index.h"
#include "sched/registry.h"
#include "sched/scheduler_config.h"
#include "util/chunked_vector.h"

namespace schedlab::perf {
class PerfModel;
}

namespace schedlab::sched {

namespace gavel {
class GavelStep;
}
class DecisionStep;
class BuiltinPasses;
class ElasticStep;
class SiaStep;
class ExternalStep;
class JobListener;
class PoolsListener;

class Scheduler {
 public:
  // `ledger` gives the jobs' lives to queue orders and preemption; null for a scheduler
  // whose jobs never stop (nothing attained, nothing done). `perf`: the run's perf model, for
  // a policy that sizes jobs or builds a throughput matrix from it (config.policy); null otherwise.
  Scheduler(const SchedulerConfig& config, const PartRegistry& registry, const cluster::Topology& topo,
            const JobLedger* ledger = nullptr, const perf::PerfModel* perf = nullptr);
  ~Scheduler();
  // Names of the jobs' labels (user, model request, trace id), for an external policy.
  void set_strings(const workload::StringPool* strings) { strings_ = strings; }
  // True when the decision step resizes elastic jobs; else they run at their traced size.
  bool resizes() const;
  // True when the decision step re-tunes batch sizes (its runs are charged the goodput ratio).
  bool adapts_batch() const;

  // Queues a job, or returns why it can never run on this cluster (it is then dropped).
  // `requested` is the set of models the job's request names (all models when none).
  std::optional<std::string> submit(const workload::JobSpec& spec, cluster::ModelMask requested, engine::Time now);
  // Why the job could never run here (submit's check, without queueing it): `validate`.
  std::optional<std::string> never_runs(const workload::JobSpec& spec, cluster::ModelMask requested) const;
  // The whole workload is known before it arrives (the packing mode): each of its jobs is
  // shown to the placement once now (PlacementPolicy::expect), and no more at submit.
  void expect_workload(const workload::JobSpec& spec, cluster::ModelMask requested);
  // The scenario's pools: the scheduler keeps `book` current (submits, starts, stops, ends),
  // recomputes entitlements every `period` and hands the book to its parts. Before any submit.
  void use_pools(pools::PoolBook* book, engine::Time period);
  // One scheduling pass at `now`: commits allocations for the jobs that start, frees the
  // GPUs of jobs it stops at once, and reports both.
  void schedule(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
                std::vector<StopDecision>& stops);
  void schedule(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts);
  // The starts of the last pass are applied (the ledger shows them running): keys that
  // depend on running or on the user's share move now.
  void starts_applied(engine::Time now);
  // A started job has ended (all tasks); backfilling stops counting on its GPUs.
  void job_ended(workload::JobId id, engine::Time now = 0);
  // A running job stopped outside a pass (a failure): it no longer runs. Its GPUs are the
  // caller's to free. Follow with requeue() to let it wait again, or forget() to end it.
  void job_stopped(workload::JobId id, StopCause cause = StopCause::host_failed);
  // A stopped job waits again, all its tasks to be placed from scratch (anywhere its filters allow).
  void requeue(workload::JobId id, engine::Time now);
  // The job is gone for good (failed): it neither runs nor waits.
  void forget(workload::JobId id, engine::Time now);
  // A timer the scheduler asked for fired.
  void on_timer(workload::JobId id, std::uint32_t version, engine::Time now);
  // Timers asked for since the last call (the caller turns them into engine events).
  void take_timers(std::vector<TimerRequest>& out);

  std::size_t pending() const { return queue_.size(); }
  // The first job in queue order, if any.
  const PendingJob* head() const { return queue_.empty() ? nullptr : &queue_.begin()->second; }
  // Models the job may use after all filters (what it may ever use; see Filter::allowed_now).
  cluster::ModelMask allowed_models(const PendingJob& job) const;
  // Waiting jobs in queue order, at most `limit` (the emulator's API).
  void queue_order(std::vector<const PendingJob*>& out, std::size_t limit) const {
    for (auto it = queue_.begin(); it != queue_.end() && out.size() < limit; ++it) out.push_back(&it->second);
  }
  // The job's current queue key (for tests and logs).
  OrderKey key_of(workload::JobId id) const { return has_key(id) ? key_state(id).key : OrderKey{}; }
  std::uint64_t preemptions() const { return preemptions_; }

  // `run --explain`: the scheduler notes which part refused one job, and why, in each pass
  // that tried it (only that job, so other runs pay nothing).
  struct Refusal {
    std::string part;    // "admission pools", "backfill easy", "placement best-fit"
    std::string reason;  // empty for placement: the caller describes the cluster
  };
  void watch(workload::JobId id) { watched_ = id; }
  // The watched job's refusal in the last pass that ran, if that pass tried it.
  const std::optional<Refusal>& watched_refusal() const { return refusal_; }

 private:
  // The decision steps work on the records below through the operations that keep them
  // consistent (record_start, stop_running, dequeue); nothing else reaches in.
  friend class BuiltinPasses;
  friend class ExternalStep;
  friend class gavel::GavelStep;
  friend class ElasticStep;
  friend class SiaStep;
  using QueueKey = std::pair<OrderKey, workload::JobId>;
  // The scheduler's record of a job that holds GPUs.
  struct ActiveJob {
    const workload::JobSpec* spec = nullptr;
    std::uint64_t gpus = 0;  // whole GPUs plus one per share slot
    engine::Time expected_end = 0;
  };
  // Per job: its key, where it is, and the version that invalidates older timers.
  struct KeyState {
    const workload::JobSpec* spec = nullptr;
    OrderKey key;
    cluster::ModelMask requested = 0;
    std::uint32_t version = 0;
    bool queued = false;
    bool running = false;
  };

  // Records `slots` of `job` as started now.
  void record_start(PendingJob& job, std::vector<cluster::TaskSlot>& slots, engine::Time now,
                    std::vector<StartDecision>& starts);
  // Stops a running job as one unit: frees its GPUs now when its stop hold is zero.
  void stop_running(workload::JobId id, StopCause cause, workload::JobId by, cluster::AllocationState& alloc,
                    std::vector<StopDecision>& stops);
  // Takes the job out of the running records (not the queue).
  void drop_running(workload::JobId id);
  // Takes the job out of the running records and the queue.
  void unrun(workload::JobId id);
  // Queue keys and their timers (scheduler_keys.cpp): recomputes one job's key where it is
  // queued and running, and asks for its next timer.
  void rekey(workload::JobId id, engine::Time now);
  void rekey_user(workload::Label user, engine::Time now);
  // Every active job's key, at the queue order's rekey period.
  void rekey_all(engine::Time now);
  // Every running job's key, in id order (QueueOrder::rekeys_running_at_events).
  void rekey_running(engine::Time now);
  // After a pass, for a list order: the waiting jobs and those the pass stopped, in queue order,
  // get places behind the running ones (QueueOrder::behind_running). Skipped when nothing moved
  // since the last time.
  void move_waiting_behind_running(const std::vector<StopDecision>& stops);
  // True when a filter wants all of the job's GPUs of one generation.
  bool one_generation(const PendingJob& job) const;
  // The model sets to try, in order; with a context, narrowed to what the filters allow now.
  std::vector<cluster::ModelMask> placement_groups(const PendingJob& job, const SchedContext* ctx = nullptr) const;
  // The same into `out` (a pass's buffer, so that an attempt allocates nothing).
  void placement_groups(const PendingJob& job, const SchedContext* ctx, std::vector<cluster::ModelMask>& out) const;
  std::optional<std::string> never_runs(const PendingJob& job) const;
  // Puts a job into the queue, or takes it out, telling the filters that watch the queue.
  void enqueue(QueueKey key, const PendingJob& job);
  void dequeue(std::map<QueueKey, PendingJob>::iterator it);
  // Gives a queued job a new key (rekeys), keeping the need index in step.
  void move_in_queue(const QueueKey& from, const QueueKey& to);
  // The job as the need index holds it: the GPUs it needs to start, its estimated run.
  QueueNeedIndex::Entry need_entry(const QueueKey& key, const PendingJob& job) const;
  void add_listener(JobListener* l) { listeners_.push_back(l); }
  const pools::PoolBook* pool_book() const;

  const cluster::Topology* topo_;
  const JobLedger* ledger_;
  FreshLedger fresh_ledger_;
  bool workload_expected_ = false;  // expect_workload() was called: submits are not shown to the placement
  std::unique_ptr<QueueOrder> queue_order_;
  std::vector<std::unique_ptr<Admission>> admissions_;
  std::vector<std::unique_ptr<Filter>> filters_;
  std::unique_ptr<PlacementPolicy> placement_;
  std::unique_ptr<Preemption> preemption_;
  std::unique_ptr<Backfill> backfill_;
  std::map<QueueKey, PendingJob> queue_;
  QueueNeedIndex need_index_;  // the same jobs with their needs (backfilling or lanes only)
  bool need_indexed_ = false;  // need_index_ is kept
  // Under admission pools (use_pools): the waiting jobs' lanes, so that a start pass passes
  // over a pool that refuses them all; the admissions before pools' must still be seen.
  bool use_lanes_ = false;
  PoolLanes lanes_;
  std::size_t lane_gate_ = 0;  // the index of admission pools
  LaneRefusals lane_refusals() const;
  // Key records exist for jobs the scheduler holds (queued, running or stopping) only: a
  // slot is taken at submit and given back when the job ends, so memory follows the active
  // jobs, not the trace.
  util::ChunkedVector<std::uint32_t> key_slot_;  // by job id; kNoKey when it has none
  std::vector<KeyState> key_pool_;
  std::vector<std::uint32_t> free_keys_;
  static constexpr std::uint32_t kNoKey = ~std::uint32_t{0};
  bool has_key(workload::JobId id) const { return id < key_slot_.size() && key_slot_[id] != kNoKey; }
  KeyState& key_state(workload::JobId id) { return key_pool_[key_slot_[id]]; }
  const KeyState& key_state(workload::JobId id) const { return key_pool_[key_slot_[id]]; }
  KeyState& new_key_state(workload::JobId id);
  void release_key_state(workload::JobId id);
  std::unordered_map<workload::JobId, ActiveJob> running_;
  std::set<QueueKey> running_by_key_;  // the same jobs, in queue order (preemption only)
  RunningByEnd running_by_end_;        // the same jobs, in reservation order (backfilling only)
  std::unordered_map<workload::Label, std::vector<workload::JobId>> user_jobs_;  // keyed_by_user() only
  std::vector<TimerRequest> timers_;
  std::vector<workload::JobId> started_;  // by the last pass, to rekey once applied
  engine::Time next_rekey_ = engine::kTimeMax;
  bool event_news_ = false;  // rekeys_running_at_events: a submit, end or timer since the last pass
  std::uint64_t preemptions_ = 0;
  std::vector<HostShape> shapes_;         // for never_fits
  std::vector<Filter*> queue_watchers_;   // filters that watch the queue
  std::uint64_t queued_without_gpu_ = 0;  // queued jobs that need no GPU
  // Bumped by every start, stop, end, requeue and key change, so that a waiting job that
  // found no victims is not tried again until something it depends on moved.
  std::uint64_t changes_ = 0;
  std::uint64_t moved_behind_at_ = ~std::uint64_t{0};  // changes_ after the last move_waiting_behind_running()
  std::vector<std::string> admission_names_;
  std::string placement_name_, backfill_name_;
  workload::JobId watched_ = kNoJob;
  std::optional<Refusal> refusal_;
  const workload::StringPool* strings_ = nullptr;
  const perf::PerfModel* perf_ = nullptr;
  std::unique_ptr<PoolsListener> pools_;  // with the scenario's pools (use_pools)
  std::vector<JobListener*> listeners_;   // the decision step, then the pools
  std::unique_ptr<DecisionStep> step_;    // chosen once, at construction
};

}  // namespace schedlab::sched
