// The scheduler's decision step: once per instant, which waiting jobs start where and which
// running jobs stop. Two implementations, chosen once when the scheduler is built: the
// built-in passes over the scenario's parts (builtin_passes.h) and an external policy
// process (external_step.h). Either one applies its decisions through the scheduler's own
// records (an allocation transaction, record_start, stop_running), so that the invariants
// hold whoever decides.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cluster/allocation.h"
#include "sched/decisions.h"
#include "sched/pending_job.h"

namespace schedlab::sched {

class DecisionStep {
 public:
  virtual ~DecisionStep() = default;
  // One decision at `now`: commits allocations for the jobs that start, frees the GPUs of
  // jobs it stops at once, and reports both.
  virtual void decide(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
                      std::vector<StopDecision>& stops) = 0;
  // True for a step that resizes elastic jobs (stop with cause `resized`, start at another size).
  virtual bool resizes() const { return false; }
  // True for a step that runs each job at the batch of highest goodput (Pollux): its runs
  // progress at speed x the perf model's goodput ratio (perf_model.h, docs/elastic.md).
  virtual bool adapts_batch() const { return false; }
  // A timer the step asked for itself (subject kExternalTimer) fired.
  virtual void own_timer(engine::Time /*now*/) {}
  // Why the step could never run this job (asked at submit after the cluster's own checks;
  // the job is then dropped with that reason), or none.
  virtual std::optional<std::string> refuses(const PendingJob& /*job*/) const { return std::nullopt; }
};

}  // namespace schedlab::sched
