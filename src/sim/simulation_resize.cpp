// Elastic jobs in the loop (docs/elastic.md): the checks at arrival, and a resize as a stop that
// keeps all work followed, in the same instant, by a start at the new size that first pays the
// restart cost (GPUs held, no progress).
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "sim/simulation.h"
#include "sim/stop_accounting.h"
#include "util/error.h"
#include "workload/elastic_range.h"

namespace schedlab::sim {

void Simulation::check_elastic(const workload::JobSpec& job) {
  if (auto bad = workload::range_error(job, topo_.total_gpus()))
    throw util::InputError(trace_name_, job.line, bad->field, bad->what);
  if (!job.elastic()) return;
  if (!scheduler_.resizes()) {
    if (!said_rigid_elastic_ && notices_)
      notices_->say(
          "elastic jobs run at their traced size: this scheduler does not resize them "
          "(scheduler.policy: optimus does; docs/elastic.md)");
    said_rigid_elastic_ = true;
    return;
  }
  if (!perf_.sizes_elastic_jobs())
    throw util::InputError(trace_name_, job.line, "max_gpus",
                           fmt::format("an elastic job needs a perf model that sizes it, perf.model: placement with "
                                       "reference: one-gpu (perf model '{}' has no speed for other sizes)",
                                       perf_.name()));
}

engine::Time Simulation::resize_cost(const JobRecord& rt) const {
  return lifecycle_.resize_restart >= 0 ? lifecycle_.resize_restart : rt.ckpt.save + rt.ckpt.restore;
}

void Simulation::resize_stop(workload::JobId id, engine::Time now) {
  auto& rt = jobs_.record(id);
  auto& life = rt.life;
  // A resize checkpoints everything the job did: its save is part of the restart's cost.
  double least = std::numeric_limits<double>::infinity();
  for (RunId r : rt.runs) least = std::min(least, executor_->stop(r, now, true));
  life.work_done = job_progress(life, rt.fully_started, !rt.runs.empty(), least);
  ++life.resizes;
  rt.resizing = true;
  metrics::LifeEvent ev{metrics::LifeStep::stop, now, &jobs_.spec(id), &life, sched::StopCause::resized};
  observer_.on_life(ev);
  // The scheduler freed its GPUs already and starts it again in this pass (or, when the new
  // size did not place, has queued it).
  release_runs(id, now, false, false);
  life.state = sched::JobState::pending;
  life.pending_since = now;
}

}  // namespace schedlab::sim
