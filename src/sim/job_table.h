// The simulation's records of its jobs: each job's spec, its life as policies read it, its
// checkpoint costs and the state of its current attempt, the runs that hold GPUs now, and the
// counts per user. It is the sched::JobLedger the scheduler reads; the loop (sim/simulation.h)
// alone changes it. Records exist for active jobs only (memory stays O(active), not
// O(trace)): a record is taken when the job is read and given back once it ended and
// observers saw its end.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "cluster/placement.h"
#include "engine/time.h"
#include "lifecycle/lifecycle_config.h"
#include "sched/job_life.h"
#include "util/id_map.h"
#include "sim/executor.h"
#include "workload/checkpoint.h"
#include "workload/job_spec.h"

namespace schedlab::sim {

// Tasks of a job started together, holding GPUs until they end or stop together.
struct Run {
  workload::JobId job = 0;
  engine::Time start = 0;
  cluster::Placement placement;
};

// One active job's record; `life` is what policies read.
struct JobRecord {
  sched::JobLife life;
  workload::CheckpointCost ckpt;
  std::vector<RunId> runs;       // runs holding GPUs now
  std::uint64_t held_gpus = 0;   // whole GPUs plus share slots held now
  std::uint64_t* user_milli = nullptr;  // its user's entry in the per-user counts, once looked up
  engine::Time progress_from = 0;  // when the current attempt began making progress (after its restore)
  double wall_per_work = 0;      // during a graceful stop: wall microseconds per unit of work, this attempt
  engine::Time hold_until = 0;   // during a graceful stop: when its GPUs are freed
  double done_at_stop = 0;       // during a graceful stop: work done when it stopped
  double restored_at_stop = 0;   // during a graceful stop: the checkpoint it had resumed from
  std::uint32_t stop_version = 0;
  bool started = false;          // ever started (for the first-start flag)
  bool attempt_started = false;  // the current attempt has started some tasks
  bool fully_started = false;    // the current attempt has no task waiting
  bool killed = false;           // stopped by a user: it ends as failed, whatever its retries
  bool retired = false;          // a service instance no longer wanted: it ends once its GPUs are free
  bool backing_off = false;      // a service instance that failed, waiting for its backoff to pass
  bool last_stop_failed = false; // its last stop was a failure (not a preemption or kill)
  bool resizing = false;         // stopped to restart at another size in this instant
};

class JobTable final : public sched::JobLedger {
 public:
  // `executor` answers for the progress of running attempts; `lifecycle` prices stops.
  JobTable(const Executor& executor, const lifecycle::LifecycleConfig& lifecycle)
      : executor_(executor), lifecycle_(lifecycle) {}

  // sched::JobLedger. A job that ended (its record given back) reads as finished, holding nothing.
  const sched::JobLife& life(workload::JobId id) const override { return active(id) ? record(id).life : ended_life_; }
  double work_done(workload::JobId id, engine::Time now) const override;
  std::uint64_t user_held_milli(workload::Label user) const override;
  std::uint64_t active_jobs() const override { return active_jobs_; }
  std::uint64_t active_users() const override { return active_users_.size(); }
  void held_slots(workload::JobId id, std::vector<cluster::TaskSlot>& out) const override;
  engine::Time stop_hold(workload::JobId id) const override;
  engine::Time keeps_work_from(workload::JobId id, engine::Time now) const override;

  // A job read from the source or submitted from outside: it gets the next id and a record.
  workload::JobId add(workload::JobSpec spec);
  const workload::JobSpec& spec(workload::JobId id) const { return specs_[id]; }
  // Every job read so far (ids 0 .. size-1; records of ended ones are given back).
  std::size_t size() const { return specs_.size(); }
  bool active(workload::JobId id) const { return id < slot_of_.size() && slot_of_[id] != kNoSlot; }
  JobRecord& record(workload::JobId id) { return records_[slot_of_[id]]; }
  const JobRecord& record(workload::JobId id) const { return records_[slot_of_[id]]; }
  // The job ended and observers saw its end: its record is given back (its final state counted).
  void release(workload::JobId id);
  // Jobs released so far, by their final state (indexed by sched::JobState).
  std::uint64_t ended(sched::JobState state) const { return ended_[static_cast<std::size_t>(state)]; }

  // The job arrived (it counts as active, for its user too), and left (ended, or dropped).
  void arrived(workload::JobId id);
  void left(workload::JobId id);
  // The GPU-thousandths the job holds change by `delta_milli` (its user's count too).
  void hold_changed(workload::JobId id, std::int64_t delta_milli);
  // Jobs whose current attempt started and has not stopped or ended.
  std::uint64_t running_jobs() const { return running_jobs_; }
  void attempt_started() { ++running_jobs_; }
  void attempt_ended() { --running_jobs_; }

  // Runs holding GPUs now, by id (ids grow in start order).
  RunId add_run(Run run);
  const Run& run(RunId id) const { return runs_.at(id); }
  bool has_run(RunId id) const { return runs_.contains(id); }
  // The run ends or stops: it is taken out of the table.
  Run take_run(RunId id) { return runs_.take(id); }
  // In no particular order (util/id_map.h): sort what needs one.
  const util::IdMap<Run>& runs() const { return runs_; }

 private:
  static constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};

  const Executor& executor_;
  const lifecycle::LifecycleConfig& lifecycle_;
  std::deque<workload::JobSpec> specs_;  // stable addresses: the scheduler holds pointers
  std::vector<JobRecord> records_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<std::uint32_t> slot_of_;  // by job id; kNoSlot once the job ended
  sched::JobLife ended_life_{.state = sched::JobState::finished};
  util::IdMap<Run> runs_;
  RunId next_run_ = 0;
  std::uint64_t running_jobs_ = 0;
  std::uint64_t active_jobs_ = 0;
  std::uint64_t ended_[static_cast<std::size_t>(sched::JobState::dropped) + 1] = {};
  std::unordered_map<workload::Label, std::uint64_t> user_milli_;    // GPU-thousandths held per user
  std::unordered_map<workload::Label, std::uint32_t> active_users_;  // active jobs per user
};

}  // namespace schedlab::sim
