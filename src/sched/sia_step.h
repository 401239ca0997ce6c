// `scheduler.policy: sia` (docs/elastic.md, "sia"): Sia's heterogeneous elastic allocation
// (sia_plan.h) as the scheduler's decision step. At every arrival, end, requeue and freed GPU
// it offers each job its configurations — a GPU type it may use and a GPU count from Sia's
// ladder (powers of two below a host's GPUs, then whole hosts; a rigid job: its size) within
// its range — with the goodput of each from the run's perf model (speed on a tight packing of
// that many GPUs of that type x Pollux's goodput ratio at its progress), solves Sia's program,
// and realises the choice as the resizing policies do (elastic_step.h): a running job whose
// configuration changes (count or type) is resized, one left out is preempted, a waiting one
// chosen starts on GPUs of its type. A job restarted less than restart_penalty_s ago, or one
// that cannot be preempted, keeps its configuration (Sia's jobs in checkpoint-restore).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sched/decision_step.h"
#include "sched/elastic_settings.h"
#include "sched/job_listener.h"
#include "sched/scheduler.h"
#include "sched/sia_plan.h"

namespace schedlab::sched {

class SiaStep final : public DecisionStep, public JobListener {
 public:
  SiaStep(Scheduler& s, SiaSettings settings);

  void decide(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
              std::vector<StopDecision>& stops) override;
  bool resizes() const override { return true; }
  // Sia, as Pollux, picks each job's batch for goodput: its runs progress at it.
  bool adapts_batch() const override { return true; }
  // A job of GPU shares or of CPUs only, or one whose fewest GPUs fit on no GPU type it may use.
  std::optional<std::string> refuses(const PendingJob& job) const override;

  void job_submitted(const PendingJob& /*job*/) override { dirty_ = true; }
  void job_requeued(const PendingJob& /*job*/) override { dirty_ = true; }
  void job_ended(workload::JobId id, bool /*was_running*/) override { job_forgotten(id); }
  void job_forgotten(workload::JobId id) override;

  // Plans made so far and how the last was solved (for tests and the benchmark's notes).
  std::uint64_t plans() const { return plans_; }
  const SiaPlan& last_plan() const { return last_; }

 private:
  struct Type {
    cluster::ModelId model = 0;
    std::uint64_t gpus = 0;       // in the cluster
    std::uint16_t host_gpus = 0;  // the most on one host: Sia's node size
  };
  // The GPU counts Sia offers the job on type t (empty: none fits).
  std::vector<std::uint64_t> counts(const workload::JobSpec& job, std::size_t t) const;
  // The tightest packing of n GPUs of the job on type t's hosts in id order (empty: it does not fit).
  cluster::Placement packing(const workload::JobSpec& job, std::size_t t, std::uint64_t n) const;
  // Speed x goodput ratio on that packing at the start of progress step `step`
  // (perf/goodput_steps.h): the figure the simulator charges the run. Memoised per job.
  double goodput(const workload::JobSpec& job, std::size_t t, std::uint64_t n, int step);
  bool start(PendingJob& job, std::size_t t, std::uint64_t n, engine::Time now, cluster::AllocationState& alloc,
             std::vector<StartDecision>& starts);

  Scheduler& s_;
  SiaSettings settings_;
  std::vector<Type> types_;  // fastest first, as Gavel's
  bool dirty_ = true;
  std::uint64_t epoch_ = ~std::uint64_t{0};
  std::unordered_map<workload::JobId, std::unordered_map<std::uint64_t, double>> memo_;
  std::unordered_map<workload::JobId, engine::Time> started_;  // each running job's last start
  std::uint64_t plans_ = 0;
  SiaPlan last_;
};

}  // namespace schedlab::sched
