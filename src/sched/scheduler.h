// The scheduler: a composition of named parts (queue order, admission, filters, placement,
// preemption, backfill) chosen by a SchedulerConfig. It keeps the pending queue and, once
// per instant, decides which jobs (or tasks) start where. It never reads a clock or a file:
// the simulator and the emulator drive it the same way.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sched/parts.h"
#include "sched/registry.h"

namespace schedlab::sched {

struct SchedulerConfig {
  std::string queue = "fifo";
  std::vector<std::string> admission = {"gang"};
  std::vector<std::string> filters = {"gpu-model"};
  std::string placement = "best-fit";
  std::string preemption = "none";
  std::string backfill = "none";
  std::map<std::string, PartArgs> args;  // per part name
};

// Tasks of one job that start now, and where.
struct StartDecision {
  workload::JobId job = 0;
  std::vector<cluster::TaskSlot> slots;
  bool job_fully_started = false;  // no task of the job is left waiting
};

class Scheduler {
 public:
  Scheduler(const SchedulerConfig& config, const PartRegistry& registry, const cluster::Topology& topo);

  // Queues a job, or returns why it can never run on this cluster (it is then dropped).
  // `requested` is the set of models the job's request names (all models when none).
  std::optional<std::string> submit(const workload::JobSpec& spec, cluster::ModelMask requested, engine::Time now);
  // One scheduling pass at `now`: commits allocations for the jobs that start and reports them.
  void schedule(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts);
  // A started job has ended (all tasks); backfilling stops counting on its GPUs.
  void job_ended(workload::JobId id);

  std::size_t pending() const { return queue_.size(); }
  // The first job in queue order, if any.
  const PendingJob* head() const { return queue_.empty() ? nullptr : &queue_.begin()->second; }
  // Models the job may use after all filters.
  cluster::ModelMask allowed_models(const PendingJob& job) const;

 private:
  using QueueKey = std::pair<double, workload::JobId>;

  // Tries to start the job's tasks now; fills `slots` and returns true on success.
  bool try_start(PendingJob& job, bool after_block, const SchedContext& ctx, cluster::AllocationState& alloc,
                 std::vector<cluster::TaskSlot>& slots);
  // True when a filter wants all of the job's GPUs of one generation.
  bool one_generation(const PendingJob& job) const;
  std::vector<cluster::ModelMask> placement_groups(const PendingJob& job) const;
  std::optional<std::string> never_fits(const PendingJob& job) const;

  const cluster::Topology* topo_;
  std::unique_ptr<QueueOrder> queue_order_;
  std::vector<std::unique_ptr<Admission>> admissions_;
  std::vector<std::unique_ptr<Filter>> filters_;
  std::unique_ptr<PlacementPolicy> placement_;
  std::unique_ptr<Preemption> preemption_;
  std::unique_ptr<Backfill> backfill_;
  std::map<QueueKey, PendingJob> queue_;
  std::unordered_map<workload::JobId, RunningJob> running_;
  RunningByEnd running_by_end_;  // the same jobs, in reservation order
  std::vector<std::vector<std::uint32_t>> host_size_counts_;  // [model][gpus] -> hosts
  // In strict order, the job that blocked the last pass and the release epoch it saw: if
  // both are unchanged the pass would fail the same way, and is skipped.
  struct Blocked {
    bool valid = false;
    workload::JobId job = 0;
    std::uint64_t epoch = 0;
  } last_block_;
};

}  // namespace schedlab::sched
