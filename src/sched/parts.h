// The interfaces of the scheduler's parts. Each answers one question about one job and
// returns a decision; none changes cluster state or reads a clock or a file. Placements
// assign tasks through an AllocationTransaction that the scheduler commits or discards.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cluster/allocation.h"
#include "sched/job_life.h"
#include "sched/pending_job.h"
#include "sched/scheduler_config.h"
#include "sched/status.h"

namespace schedlab::pools {
class PoolBook;
}

namespace schedlab::sched {

// Read-only facts every part sees.
struct SchedContext {
  const cluster::Topology& topo;
  const cluster::AllocationState& alloc;
  engine::Time now;
  const pools::PoolBook* pools = nullptr;  // the scenario's pools; null without `pools:`
};

// A queue-order key: smaller goes first, compared (primary, secondary), then by job id.
struct OrderKey {
  double primary = 0;
  double secondary = 0;
  auto operator<=>(const OrderKey&) const = default;
};

// Which job is considered next: pending jobs for starting, running ones for keeping (under
// preemption). Keys may depend on the job's life (attained service, remaining work, its
// user's share); the scheduler recomputes a job's key only when an input changes: at
// submit, start, stop and end, at the instant next_change() names, on every rekey_period(),
// and for all jobs of a user when `keyed_by_user()` and one of them starts or stops.
class QueueOrder {
 public:
  virtual ~QueueOrder() = default;
  virtual OrderKey key(const workload::JobSpec& job, const JobLedger& ledger, bool running,
                       engine::Time now) const = 0;
  // The next instant after `now` at which the job's key changes by time alone (a LAS
  // demotion of a running job, a starvation promotion of a waiting one); kTimeMax if none.
  virtual engine::Time next_change(const workload::JobSpec& /*job*/, const JobLedger& /*ledger*/, bool /*running*/,
                                   engine::Time /*now*/) const {
    return engine::kTimeMax;
  }
  // Keys of running jobs move continuously (SRTF's remaining work): they are recomputed
  // before preemption compares them.
  virtual bool drifts_while_running() const { return false; }
  // Every key is recomputed at this period (Themis' rounds); 0 = never.
  virtual engine::Time rekey_period() const { return 0; }
  // A start or stop changes the keys of every job of the same user (fair share).
  virtual bool keyed_by_user() const { return false; }
  // The key depends on the job's spec alone (fifo, priority, sjf): it is computed at submit
  // and requeue only, never after a start.
  virtual bool fixed_keys() const { return false; }
  // Every submitted job is shown once, in submit order (Gittins learns its distribution).
  virtual void job_submitted(const workload::JobSpec& /*job*/) {}
  // True for an order kept as a list (las `order: list`, the Tiresias simulator's): after every
  // pass the scheduler asks behind_running() for the new key of each waiting job, in queue
  // order, so that the jobs left waiting follow the running ones and keep their order.
  virtual bool moves_waiting_behind_running() const { return false; }
  virtual OrderKey behind_running(const workload::JobSpec& /*job*/, const OrderKey& key) { return key; }
  // True for an order that, like the Tiresias simulator (las `demote_at: tiresias-py2`), looks
  // at every running job only at instants where something happened (a submit, an end, or a
  // timer from next_change()): there the scheduler recomputes every running job's key before
  // the pass, and a timer only marks its instant (next_change() names when the order next looks).
  virtual bool rekeys_running_at_events() const { return false; }
};

// May this job start now at all? Parts are combined: every one must agree.
class Admission {
 public:
  virtual ~Admission() = default;
  virtual Status admit(const PendingJob& job, const SchedContext& ctx) const = 0;
  // True when the job's remaining tasks must start together (a gang) under this part.
  virtual bool all_or_nothing(const PendingJob& /*job*/) const { return false; }
  // False for a part whose refusal concerns the job's own share (its pool is at its
  // entitlement): the job then waits without blocking the jobs behind it, as if each pool
  // had a queue of its own.
  virtual bool blocks_queue() const { return true; }
  // A refusal from admit() in full words (`run --explain`), where the Status's numbers
  // name something better said by name; asked only then.
  virtual std::string refusal(const PendingJob& /*job*/, const SchedContext& /*ctx*/, const Status& status) const {
    return status.reason();
  }
  // Why this part could never admit the job, however long it waited (it asks for more than
  // its pool may ever hold); checked once, at submit, where the job is then dropped.
  virtual std::optional<std::string> never_admits(const PendingJob& /*job*/,
                                                  const pools::PoolBook* /*pools*/) const {
    return std::nullopt;
  }
  // What a pass may know of this part's answer without asking it, so that it can pass over
  // the jobs a later part refuses without blocking (see refuses_over_pool): the GPUs of
  // job.allowed that must be free for this part to admit the job (0: it admits the job
  // whatever is free), or nothing when its answer cannot be foreseen so (the pass then asks).
  virtual std::optional<std::uint64_t> admits_with_free(const PendingJob& /*job*/) const { return std::nullopt; }
  // True for a part that refuses a job exactly when the job's tasks would take its pool, or a
  // pool above it, over its bound (PoolBook::first_exceeded; admission pools): a pass may then
  // pass over a pool that would refuse every job waiting in it (PoolLanes).
  virtual bool refuses_over_pool() const { return false; }
};

// Which GPU models may take this job's tasks (hosts are homogeneous per model, so a model
// set answers "may this host take the job"; the bit cluster::kHostsWithoutGpus stands for the
// CPU-only hosts, which only jobs that need no GPU can use). Filters are combined by
// intersection.
class Filter {
 public:
  virtual ~Filter() = default;
  // The hosts that may ever take the job: asked when it is queued (a job no host may ever
  // take is dropped).
  virtual cluster::ModelMask allowed(const PendingJob& job, cluster::ModelMask candidates,
                                     const cluster::Topology& topo) const = 0;
  // Of those, the hosts that may take it now, for a filter whose answer changes with the
  // queue or the clock: asked before every placement attempt. Default: all of them.
  virtual cluster::ModelMask allowed_now(const PendingJob& /*job*/, cluster::ModelMask candidates,
                                         const SchedContext& /*ctx*/) const {
    return candidates;
  }
  // True when all the job's GPUs must be of one generation.
  virtual bool one_generation(const PendingJob& /*job*/) const { return false; }
  // A filter that reads the queue returns true, and is then told of every job that starts
  // waiting (submitted or requeued) and every job that stops waiting (started whole, stopped
  // or gone), with the same `since`, so that it keeps what it needs as it changes instead of
  // scanning the queue.
  virtual bool watches_queue() const { return false; }
  virtual void job_waiting(const PendingJob& /*job*/) {}
  virtual void job_not_waiting(const PendingJob& /*job*/) {}
};

// Where the tasks go. Contract: assign at most `want` tasks of `job` on hosts of models in
// `allowed`, through `tx`, appending their slots to `out`; stop early when no more fit.
// Every slot holds the job's CPUs and memory per task (PendingJob::need()) on a host that has
// them; a job that needs no GPU goes on hosts of any class in `allowed` (its GPU models' hosts
// and, with kHostsWithoutGpus, the CPU-only hosts) by their free CPUs.
// The caller discards the transaction when fewer than it needs were placed.
class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  virtual void place(const PendingJob& job, std::uint32_t want, cluster::ModelMask allowed,
                     cluster::AllocationTransaction& tx, std::vector<cluster::TaskSlot>& out) const = 0;
  // A job of the workload: shown each job as it is submitted, or, when the whole workload is
  // known beforehand (the packing mode), every job once before the first placement. A
  // placement that weighs its choices against the workload's mix of requests (fgd) learns it
  // here; `job.requested` holds the GPU models the job's request names.
  virtual void expect(const PendingJob& /*job*/) {}
};

// A running job the preemption pass could stop: its key is worse than the waiting job's
// (per Preemption::outranks) and it has run at least min_run().
struct EvictionCandidate {
  workload::JobId id = 0;
  OrderKey key;
  engine::Time run_start = 0;  // when its current run began
};

// Whom to evict so that a waiting job can run. The part answers only that; the built-in
// passes own the pass (builtin_preempt.cpp), run after the start pass when enabled(): for each
// waiting job in queue order it offers the running jobs the job outranks, worst key first,
// grouped by equal rank and ordered within a group by evict_first(); a dry run in an
// allocation transaction frees them in that order until the job places, then reprieves
// victims (best first) while it still places; only then are the rest stopped, as whole
// gangs, with reasons, like starts.
class Preemption {
 public:
  virtual ~Preemption() = default;
  virtual bool enabled() const = 0;
  // A run is not preempted before it has run this long (thrash guard).
  virtual engine::Time min_run() const { return 0; }
  // True when the part decides the whole running set at once (reorder `pass: redecide`, the
  // Tiresias simulator's walk): the built-in passes then run one walk over running and waiting
  // jobs in queue order instead of a start pass and a preemption pass (builtin_redecide.cpp).
  virtual bool redecides() const { return false; }
  // May a job waiting with key `waiting` evict one running with key `running`? Must be
  // monotone in the queue order: if it holds for a running key, it holds for every worse
  // one, and if it fails for a waiting key, it fails for every worse one. Jobs of equal
  // rank (neither outranks the other) form one group of candidates.
  virtual bool outranks(const OrderKey& waiting, const OrderKey& running) const { return waiting < running; }
  // Within one group of equal rank: true when `a` is to be evicted before `b`. A strict
  // total order (end with the job id) so that the choice is deterministic.
  virtual bool evict_first(const EvictionCandidate& a, const EvictionCandidate& b) const {
    return a.key != b.key ? a.key > b.key : a.id > b.id;
  }
  // At each entitlement period of the scenario's pools, once entitlements are recomputed:
  // the running jobs to stop for their pool (Peloton's reclaim, preemption pool-reclaim).
  // `running()` lists the jobs that held GPUs at its first call, in no particular order: it
  // is built only then (most periods reclaim nothing, and a long run holds many jobs), so
  // jobs stopped since are still listed and the ledger tells them. `stop` stops one at
  // once, as a whole gang, and the book shows its release before it returns. Default: none.
  using RunningJobs = std::function<const std::vector<const workload::JobSpec*>&()>;
  virtual void entitlement_period(const pools::PoolBook& /*book*/, const JobLedger& /*ledger*/,
                                  const RunningJobs& /*running*/,
                                  const std::function<void(workload::JobId)>& /*stop*/) const {}
};

// A running job as backfilling sees it: its GPUs and when it is expected to end.
struct RunningJob {
  workload::JobId id;
  std::uint64_t gpus;
  engine::Time expected_end;
};

// Running jobs by expected end, then id: the order a reservation is computed in.
struct ByExpectedEnd {
  bool operator()(const RunningJob& a, const RunningJob& b) const {
    return a.expected_end != b.expected_end ? a.expected_end < b.expected_end : a.id < b.id;
  }
};
using RunningByEnd = std::set<RunningJob, ByExpectedEnd>;

// May a later job start ahead of a blocked one? `none` never; `easy` when it does not
// delay the blocked job's reservation.
class Backfill {
 public:
  virtual ~Backfill() = default;
  // How many queued jobs after the first blocked one may be considered (0 = strict order).
  virtual std::size_t max_scan() const = 0;
  // Called once per scheduling pass with the first blocked job; prepares a reservation.
  virtual void on_blocked(const PendingJob& /*blocked*/, const SchedContext& /*ctx*/, const RunningByEnd& /*running*/) {}
  // May `candidate`, needing `gpus` GPUs, start now without delaying the blocked job? A
  // question only: the scheduler may ask before and after placing the candidate.
  virtual bool may_start(const PendingJob& /*candidate*/, std::uint64_t /*gpus*/, const SchedContext& /*ctx*/) const {
    return false;
  }
  // The candidate did start with `gpus` GPUs: the reservation accounts for them.
  virtual void started(const PendingJob& /*candidate*/, std::uint64_t /*gpus*/, const SchedContext& /*ctx*/) {}
  // What may_start refuses whatever the placement, so that a pass may pass over such jobs
  // unasked: a job that needs more than `spare` GPUs and would end after `ends_by` (its
  // estimate, or else its traced duration, from now). Default: no job is refused so.
  struct Limit {
    std::uint64_t spare = ~std::uint64_t{0};
    engine::Time ends_by = engine::kTimeMax;
  };
  virtual Limit limit() const { return {}; }
  // Why may_start said no, in words (`run --explain`); asked only then.
  virtual std::string refusal(const PendingJob& /*candidate*/, std::uint64_t /*gpus*/,
                              const SchedContext& /*ctx*/) const {
    return "jobs behind a blocked one wait (strict order)";
  }
};

}  // namespace schedlab::sched
