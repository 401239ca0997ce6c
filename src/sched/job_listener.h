// Listeners of the scheduler's job events: what keeps its own records of the jobs the
// scheduler holds (the pools' book, an external policy's event list, the built-in passes'
// memo of what blocked them) hears of each change here, instead of the scheduler testing
// for each of them. Called in the order the scheduler registered them, right after the
// scheduler's own records changed; a listener never calls back into the scheduler.
#pragma once

#include "sched/decisions.h"
#include "sched/pending_job.h"

namespace schedlab::sched {

class JobListener {
 public:
  virtual ~JobListener() = default;
  // Queued at submit (it passed the never-fits and admission checks).
  virtual void job_submitted(const PendingJob& /*job*/) {}
  // Refused at submit: it never fits (or is never admitted) and is dropped.
  virtual void job_refused(workload::JobId /*id*/) {}
  // `tasks` of its tasks start now (job.tasks_left no longer counts them).
  virtual void tasks_started(const PendingJob& /*job*/, std::uint32_t /*tasks*/) {}
  // A running job stops as one unit (chosen by a pass, or a failure); it has not yet left
  // the running records.
  virtual void job_stopped(workload::JobId /*id*/, StopCause /*cause*/) {}
  // It left the running records (stopped, ended or gone): it holds nothing any more.
  virtual void job_left_running(workload::JobId /*id*/) {}
  // A stopped job waits again, all its tasks.
  virtual void job_requeued(const PendingJob& /*job*/) {}
  // It ended; `was_running`: it still ran (not stopped or waiting) when it did.
  virtual void job_ended(workload::JobId /*id*/, bool /*was_running*/) {}
  // It is gone for good (failed): it neither runs nor waits.
  virtual void job_forgotten(workload::JobId /*id*/) {}
};

}  // namespace schedlab::sched
