// Read-only views of a run in progress: the emulator API's view of hosts and jobs (RunView),
// why a job waits (`run --explain`, the API's queue), and the snapshot observers get after each
// scheduling pass (metrics::InstantState, with the free GPUs the first waiting job cannot use).
// It reads the loop's parts and never changes them.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_set>

#include "cluster/allocation.h"
#include "cluster/topology.h"
#include "metrics/observer.h"
#include "sched/scheduler.h"
#include "sim/job_table.h"
#include "sim/run_view.h"

namespace schedlab::sim {

class RunInspector {
 public:
  // `outside`: jobs submitted from outside that have not arrived yet (not shown).
  RunInspector(const cluster::Topology& topo, const cluster::AllocationState& alloc, const sched::Scheduler& scheduler,
               const JobTable& jobs, const workload::StringPool& strings,
               const std::unordered_set<workload::JobId>& outside)
      : topo_(topo), alloc_(alloc), scheduler_(scheduler), jobs_(jobs), strings_(strings), outside_(outside) {}

  // Hosts, counts and jobs at `out.now` (services are the loop's to add): the waiting jobs in
  // queue order (`limit` of them) with `queue_only`, else the active jobs by id, `limit` at most.
  void inspect(RunView& out, std::size_t limit, bool queue_only) const;
  // Why a job waits now ("" when it does not wait in the queue): the part that refused it in
  // the last pass (for a watched job), else behind which job, or, first in line, what it lacks.
  std::string waiting_reason(workload::JobId id) const;
  // The cluster after the scheduling pass at `now`.
  metrics::InstantState snapshot(engine::Time now, const pools::PoolBook* pools) const;

 private:
  void describe_job(workload::JobId id, RunView::Job& out) const;
  std::string why_waiting(const sched::PendingJob& p, std::uint32_t position, workload::JobId head) const;
  // What the cluster lacks for the job's next task(s) (a placement refusal, in numbers).
  std::string lacking(const sched::PendingJob& p) const;

  const cluster::Topology& topo_;
  const cluster::AllocationState& alloc_;
  const sched::Scheduler& scheduler_;
  const JobTable& jobs_;
  const workload::StringPool& strings_;
  const std::unordered_set<workload::JobId>& outside_;
  // The snapshot's GPUs usable by the first waiting job, kept while neither the allocation nor
  // what the job asks changed: most instants change neither (a speed change, a timer).
  struct UsableMemo {
    std::uint64_t version = ~std::uint64_t{0};
    workload::JobId job = 0;
    cluster::ModelMask allowed = 0;
    std::uint16_t gpus_per_task = 0;
    cluster::TaskNeed need;
    std::uint64_t usable = 0;
  };
  mutable UsableMemo usable_memo_;
};

}  // namespace schedlab::sim
