// The scheduler: a composition of named parts (queue order, admission, filters, placement,
// preemption, backfill) chosen by a SchedulerConfig. It keeps the pending queue and, once
// per instant, decides which jobs (or tasks) start where. It never reads a clock or a file:
// the simulator and the emulator drive it the same way.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "sched/external/external_config.h"
#include "sched/parts.h"
#include "sched/registry.h"
#include "sched/scheduler_config.h"
#include "util/chunked_vector.h"

namespace schedlab::sched {

class ExternalPolicy;
struct ExternalDecision;

inline constexpr workload::JobId kNoJob = ~workload::JobId{0};
// Subjects of timers that are not a job's (TimerRequest::job): the pools' entitlement period
// and an external policy's own timers.
inline constexpr workload::JobId kPoolsTimer = kNoJob - 1;
inline constexpr workload::JobId kExternalTimer = kNoJob - 2;

// Tasks of one job that start now, and where.
struct StartDecision {
  workload::JobId job = 0;
  std::vector<cluster::TaskSlot> slots;
  bool job_fully_started = false;  // no task of the job is left waiting
};

// reclaimed: its pool held more than its entitlement for too long (preemption pool-reclaim).
enum class StopCause : std::uint8_t { preempted, host_failed, gpu_failed, task_failed, killed, reclaimed };
const char* cause_name(StopCause c);
// A stop the scheduler chose (graceful, counted as a preemption) rather than a failure or a kill.
inline bool is_preemption(StopCause c) { return c == StopCause::preempted || c == StopCause::reclaimed; }

// A whole job (all its running tasks: a gang is stopped as one unit) stops now.
struct StopDecision {
  workload::JobId job = 0;
  StopCause cause = StopCause::preempted;
  workload::JobId by = kNoJob;  // the job it makes room for, when preempted
  // The scheduler freed the job's GPUs already (an immediate stop); otherwise the job keeps
  // them while it saves a checkpoint, and the simulation frees them when the save ends.
  bool released = false;
};

// "Recompute this job's key at `at`" (kNoJob: every job's), valid while `version` is current.
struct TimerRequest {
  engine::Time at = 0;
  workload::JobId job = 0;
  std::uint32_t version = 0;
};

class Scheduler {
 public:
  // `ledger` gives the jobs' lives to queue orders and preemption; null for a scheduler
  // whose jobs never stop (nothing attained, nothing done).
  Scheduler(const SchedulerConfig& config, const PartRegistry& registry, const cluster::Topology& topo,
            const JobLedger* ledger = nullptr);
  ~Scheduler();
  // Names of the jobs' labels (user, model request, trace id), for an external policy.
  void set_strings(const workload::StringPool* strings) { strings_ = strings; }

  // Queues a job, or returns why it can never run on this cluster (it is then dropped).
  // `requested` is the set of models the job's request names (all models when none).
  std::optional<std::string> submit(const workload::JobSpec& spec, cluster::ModelMask requested, engine::Time now);
  // The whole workload is known before it arrives (the packing mode): each of its jobs is
  // shown to the placement once now (PlacementPolicy::expect), and no more at submit.
  void expect_workload(const workload::JobSpec& spec, cluster::ModelMask requested);
  // The scenario's pools: the scheduler keeps `book` current (submits, starts, stops, ends),
  // recomputes entitlements every `period` and hands the book to its parts. Before any submit.
  void use_pools(pools::PoolBook* book, engine::Time period);
  std::uint64_t reclaims() const { return reclaims_; }
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

  // Tries to start the job's tasks now; fills `slots` and returns true on success. On
  // failure, `blocks` says whether the job holds up the queue behind it (it does, unless an
  // admission part refused it for its pool's share).
  bool try_start(PendingJob& job, bool after_block, const SchedContext& ctx, cluster::AllocationState& alloc,
                 std::vector<cluster::TaskSlot>& slots, bool& blocks);
  // At each entitlement period (scheduler_pools.cpp): entitlements recomputed and, under
  // pool-reclaim, the surplus of pools over theirs for long enough stopped.
  void pools_pass(engine::Time now, cluster::AllocationState& alloc, std::vector<StopDecision>& stops);
  void reclaim(std::int32_t pool, engine::Time now, cluster::AllocationState& alloc, std::vector<StopDecision>& stops);
  // After a pass: the loop is woken at the next period while jobs run.
  void pools_timer();
  // The placement pass in queue order (with backfill past the first blocked job).
  void start_pass(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts);
  // The preemption pass (scheduler_preempt.cpp): stops running jobs to start better ones.
  void preempt_pass(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
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
  // Records `slots` of `job` as started now.
  void record_start(PendingJob& job, std::vector<cluster::TaskSlot>& slots, engine::Time now,
                    std::vector<StartDecision>& starts);
  // Stops a running job as one unit: frees its GPUs now when its stop hold is zero.
  void stop_running(workload::JobId id, StopCause cause, workload::JobId by, engine::Time now,
                    cluster::AllocationState& alloc, std::vector<StopDecision>& stops);
  // Takes the job out of the running records (not the queue).
  void drop_running(workload::JobId id);
  // Takes the job out of the running records and the queue.
  void unrun(workload::JobId id);
  // With an external policy (scheduler_external.cpp): one tick when anything happened, its
  // decisions checked against `alloc` and applied like the parts' own.
  void external_pass(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
                     std::vector<StopDecision>& stops);
  void external_start(const ExternalDecision& d, engine::Time now, cluster::AllocationState& alloc,
                      std::vector<StartDecision>& starts);
  void external_preempt(const ExternalDecision& d, engine::Time now, cluster::AllocationState& alloc,
                        std::vector<StopDecision>& stops);
  void external_submitted(const PendingJob& job);
  void external_stopped(workload::JobId id, StopCause cause);
  // Recomputes one job's key where it is queued and running; asks for its next timer.
  void rekey(workload::JobId id, engine::Time now);
  void rekey_user(workload::Label user, engine::Time now);
  // True when a filter wants all of the job's GPUs of one generation.
  bool one_generation(const PendingJob& job) const;
  // The model sets to try, in order; with a context, narrowed to what the filters allow now.
  std::vector<cluster::ModelMask> placement_groups(const PendingJob& job, const SchedContext* ctx = nullptr) const;
  std::optional<std::string> never_fits(const PendingJob& job) const;
  // Puts a job into the queue, or takes it out, telling the filters that watch the queue.
  void enqueue(QueueKey key, const PendingJob& job);
  void dequeue(std::map<QueueKey, PendingJob>::iterator it);

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
  // Key records exist for jobs the scheduler holds (queued, running or stopping) only: a
  // slot is taken at submit and given back when the job ends, so memory follows the active
  // jobs, not the trace.
  ChunkedVector<std::uint32_t> key_slot_;  // by job id; kNoKey when it has none
  std::vector<KeyState> key_pool_;
  std::vector<std::uint32_t> free_keys_;
  static constexpr std::uint32_t kNoKey = ~std::uint32_t{0};
  bool has_key(workload::JobId id) const { return id < key_slot_.size() && key_slot_[id] != kNoKey; }
  KeyState& key_state(workload::JobId id) { return key_pool_[key_slot_[id]]; }
  const KeyState& key_state(workload::JobId id) const { return key_pool_[key_slot_[id]]; }
  KeyState& new_key_state(workload::JobId id);
  void release_key_state(workload::JobId id);
  std::unordered_map<workload::JobId, ActiveJob> running_;
  std::set<QueueKey> running_by_key_;  // the same jobs, in queue order
  RunningByEnd running_by_end_;        // the same jobs, in reservation order (backfilling only)
  std::unordered_map<workload::Label, std::vector<workload::JobId>> user_jobs_;  // keyed_by_user() only
  std::vector<TimerRequest> timers_;
  std::vector<workload::JobId> started_;  // by the last pass, to rekey once applied
  engine::Time next_rekey_ = engine::kTimeMax;
  std::uint64_t preemptions_ = 0;
  pools::PoolBook* pools_ = nullptr;
  engine::Time pools_period_ = 0;
  engine::Time next_pools_ = std::numeric_limits<engine::Time>::min();
  engine::Time pools_timer_at_ = std::numeric_limits<engine::Time>::min();
  std::uint64_t reclaims_ = 0;
  // The cluster's distinct host shapes with their counts (a few per cluster file), for
  // never_fits: how many tasks of a job the whole cluster could hold.
  struct HostShape {
    std::size_t cls = 0;  // Topology::class_of
    std::uint16_t gpus = 0;
    std::uint32_t cpu_milli = 0, mem_mib = 0;
    std::uint64_t count = 0;
  };
  std::vector<HostShape> shapes_;
  std::vector<Filter*> queue_watchers_;  // filters that watch the queue
  std::uint64_t queued_without_gpu_ = 0;  // queued jobs that need no GPU
  // In strict order, the job that blocked the last pass and the release epoch it saw: if
  // both are unchanged the pass would fail the same way, and is skipped.
  struct Blocked {
    bool valid = false;
    workload::JobId job = 0;
    std::uint64_t epoch = 0;
  } last_block_;
  // Preemption: bumped by every start, stop, end, requeue and key change, so that a waiting
  // job that found no victims is not tried again until something it depends on moved.
  std::uint64_t changes_ = 0;
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
  std::vector<std::string> admission_names_;
  std::string placement_name_, backfill_name_;
  workload::JobId watched_ = kNoJob;
  std::optional<Refusal> refusal_;
  const workload::StringPool* strings_ = nullptr;
  std::unique_ptr<ExternalPolicy> external_;
  std::vector<std::uint16_t> external_down_;  // down GPUs per host, as the policy was last told
  std::uint64_t external_down_gpus_ = 0;  // down GPUs then, to skip the scan when unchanged
};

}  // namespace schedlab::sched
