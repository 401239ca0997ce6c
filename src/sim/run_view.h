// A run as the outside world may look at it (the emulator's API: GET /v1/cluster, /v1/jobs,
// /v1/queue): hosts with their free and down GPUs, and the jobs not yet ended with their
// state, placement, progress and, for those waiting, why. Built in the loop's thread on
// request, so that the API never reads the scheduler while it runs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/time.h"
#include "sched/job_life.h"
#include "workload/job_spec.h"

namespace schedlab::sim {

// How many job states there are (sched::JobState, pending to dropped).
inline constexpr std::size_t kJobStates = static_cast<std::size_t>(sched::JobState::dropped) + 1;

// The trace number of jobs submitted from outside (they are in no trace).
inline constexpr std::uint64_t kSubmittedFromOutside = ~std::uint64_t{0};

// A job submitted from outside: its shape and length as a spec (its labels are set from the
// names, its id and submit time by the run).
struct SubmittedJob {
  workload::JobSpec spec;
  std::string name, user, model;  // the model request: "" = any, "A|B" = either
};

// What scaling a service did: the instances wanted before and after. `not_started` when more
// were asked of a service none of whose instances has arrived yet (its shape is not known).
struct ServiceScaled {
  std::uint32_t before = 0, after = 0;
  bool not_started = false;
};

struct RunView {
  struct Host {
    std::uint16_t gpus = 0, free = 0, down = 0;
  };
  struct Job {
    workload::JobId id = 0;
    std::string name;  // the trace's job id ("" when it has none)
    std::string user;
    sched::JobState state = sched::JobState::pending;
    engine::Time submit = 0;
    std::uint32_t tasks = 0, gpus_per_task = 0;
    std::string placement;  // where its runs hold GPUs now ("" when none)
    std::uint32_t preemptions = 0, failures = 0, restarts = 0;
    double work_done_s = 0, work_total_s = 0;
    std::uint32_t queue_position = 0;  // 1-based, when it waits; 0 otherwise
    std::string waiting;               // why it waits ("" when it does not)
  };
  // A service (Marathon's app): its instances wanted now, and how many of them run.
  struct Service {
    std::string name;
    std::uint32_t instances = 0, running = 0;
  };
  engine::Time now = 0;
  std::vector<Host> hosts;
  std::vector<Service> services;  // in the order they first appeared
  std::vector<Job> jobs;  // not yet ended, by id; `limit` of them at most
  std::uint64_t active_jobs = 0, pending_jobs = 0, running_jobs = 0;
  // Jobs arrived so far by state (indexed by sched::JobState): the active ones as they are now,
  // the ended ones as they ended. Jobs submitted from outside count once they arrived.
  std::array<std::uint64_t, kJobStates> jobs_by_state{};
  // Since the run began: stop decisions (preemptions), and failures that struck (hosts, GPUs,
  // tasks that died).
  std::uint64_t preemptions = 0, failures = 0;
};

}  // namespace schedlab::sim
