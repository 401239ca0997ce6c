// What the scheduler decides and asks for, as values: the starts and stops of one pass, their
// causes, and the timers it wants. A header of its own so that observers and results (metrics/,
// sim/'s stories) read decisions without including the whole scheduler (sched/scheduler.h).
#pragma once

#include <cstdint>
#include <vector>

#include "cluster/placement.h"
#include "engine/time.h"
#include "workload/job_spec.h"

namespace schedlab::sched {

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
// resized: an elastic job stops to restart at once at another size (docs/elastic.md); it keeps
// all its work and is never requeued: the same pass starts it again.
enum class StopCause : std::uint8_t { preempted, host_failed, gpu_failed, task_failed, killed, reclaimed, resized };
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

}  // namespace schedlab::sched
