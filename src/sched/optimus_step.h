// The decision step of `scheduler.policy: optimus` (docs/elastic.md, "optimus"): at every
// arrival, end, requeue and freed GPU it sizes every job at once (optimus_plan.h: running jobs
// first, keeping at least their fewest GPUs, then waiting ones in queue order) from the perf
// model's speed curves, then realises the sizes: a running job whose size changes is resized
// (a stop with cause `resized`, its GPUs freed at once, and a start at the new size in the same
// pass), a waiting job given GPUs starts. Admission, backfill and preemption parts take no part;
// filters still say which GPU models a job may use.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sched/decision_step.h"
#include "sched/job_listener.h"
#include "sched/scheduler.h"

namespace schedlab::sched {

class OptimusStep final : public DecisionStep, public JobListener {
 public:
  explicit OptimusStep(Scheduler& s) : s_(s) {}

  void decide(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
              std::vector<StopDecision>& stops) override;
  bool resizes() const override { return true; }
  std::optional<std::string> refuses(const PendingJob& job) const override;

  void job_submitted(const PendingJob& /*job*/) override { dirty_ = true; }
  void job_requeued(const PendingJob& /*job*/) override { dirty_ = true; }
  void job_ended(workload::JobId id, bool /*was_running*/) override;
  void job_forgotten(workload::JobId id) override;

 private:
  // The job's speed on n GPUs as the perf model gives it, on the tightest packing of n GPUs
  // over the cluster's hosts in id order; memoised per job and size.
  double speed(const workload::JobSpec& job, std::uint64_t n);
  // Places `want` tasks of the job (at least `need`) and records the start; false when fewer fit.
  bool start(PendingJob& job, std::uint64_t want, std::uint64_t need, engine::Time now, cluster::AllocationState& alloc,
             std::vector<StartDecision>& starts);

  Scheduler& s_;
  bool dirty_ = true;
  std::uint64_t epoch_ = ~std::uint64_t{0};           // the release epoch the last plan saw
  std::unordered_map<workload::JobId, std::vector<double>> speeds_;  // job -> speed by n (0: not yet known)
  std::vector<cluster::Placement> packed_;            // by GPU count
};

}  // namespace schedlab::sched
