// The decision step of an external policy (docs/external-scheduler.md): the policy process
// hears of the scheduler's job events and of hosts going down or up, and at each instant
// with news gets one tick; its decisions are checked against the allocation state and
// applied through the same transaction and records as the built-in passes' (record_start,
// stop_running), so that a decision is applied wholly or not at all.
#pragma once

#include <memory>
#include <vector>

#include "sched/decision_step.h"
#include "sched/job_listener.h"
#include "sched/scheduler.h"

namespace schedlab::sched {

class ExternalPolicy;
struct ExternalDecision;

class ExternalStep final : public DecisionStep, public JobListener {
 public:
  // Starts the policy process (throws InputError when it does not shake hands).
  ExternalStep(Scheduler& s, const ExternalConfig& config);
  ~ExternalStep() override;

  void decide(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
              std::vector<StopDecision>& stops) override;
  void own_timer(engine::Time now) override;

  void job_submitted(const PendingJob& job) override;
  void job_stopped(workload::JobId id, StopCause cause) override;
  void job_requeued(const PendingJob& job) override;
  void job_ended(workload::JobId id, bool was_running) override;
  void job_forgotten(workload::JobId id) override;

 private:
  void start(const ExternalDecision& d, engine::Time now, cluster::AllocationState& alloc,
             std::vector<StartDecision>& starts);
  void preempt(const ExternalDecision& d, cluster::AllocationState& alloc, std::vector<StopDecision>& stops);

  Scheduler& s_;
  std::unique_ptr<ExternalPolicy> policy_;
  std::vector<std::uint16_t> down_;  // down GPUs per host, as the policy was last told
  std::uint64_t down_gpus_ = 0;      // down GPUs then, to skip the scan when unchanged
};

}  // namespace schedlab::sched
