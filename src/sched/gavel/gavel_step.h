// Gavel's heterogeneity-aware policies (OSDI'20) as the scheduler's decision step
// (`scheduler.policy: gavel-max-min-fairness` or `gavel-finish-time-fairness`): every round
// (`round_s`, 360 s by default) it recomputes the allocation X over the throughput matrix of
// the active jobs when the job set changed, picks the next round's jobs and their GPU types
// with Gavel's round mechanism (round_mechanism.h), keeps a picked job that already runs on
// its type (Gavel's lease renewal), preempts the running jobs not picked, and starts the new
// picks on GPUs of their type through the scenario's placement part and the scheduler's own
// allocation transaction and records. The matrix comes from the run's perf model: a job's
// speed on a tight placement of its GPUs of each type. docs/elastic.md, "Gavel's policies as
// scheduler parts", has the details and every difference from Gavel's simulator.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "sched/decision_step.h"
#include "sched/gavel/finish_time_program.h"
#include "sched/gavel/gavel_settings.h"
#include "sched/gavel/throughput_matrix.h"
#include "sched/job_listener.h"
#include "sched/scheduler.h"

namespace schedlab::perf {
class PerfModel;
}

namespace schedlab::sched::gavel {

class GavelStep final : public DecisionStep, public JobListener {
 public:
  GavelStep(Scheduler& s, const GavelSettings& settings, const perf::PerfModel& perf);

  void decide(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
              std::vector<StopDecision>& stops) override;
  void own_timer(engine::Time now) override;
  // A job that needs no GPU or a share of one (Gavel's policies allocate whole GPUs), or whose
  // gang fits on no single GPU type it may use.
  std::optional<std::string> refuses(const PendingJob& job) const override;

  void job_submitted(const PendingJob& job) override;
  void job_stopped(workload::JobId id, StopCause cause) override;
  void job_ended(workload::JobId id, bool was_running) override;
  void job_forgotten(workload::JobId id) override;

  // Rounds run and allocations computed so far (for tests).
  std::uint64_t rounds() const { return rounds_; }
  std::uint64_t allocations() const { return allocations_; }

 private:
  struct Job {
    const workload::JobSpec* spec = nullptr;
    std::vector<double> throughput;  // per GPU type: speed on a tight placement of its GPUs there
    std::vector<double> x;           // its row of the current allocation
    std::vector<double> received;    // seconds run on each type since the allocation was reset
    std::vector<double> deficit;     // Gavel's deficits, summed over resets
    int type = -1;                   // the type it runs on now, -1 when it does not run
    engine::Time since = 0;          // when its time on `type` was last credited
    int picked = -1;                 // the type this round gives it (-1: none)
  };

  void round(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
             std::vector<StopDecision>& stops);
  void reallocate(engine::Time now);
  // Starts the jobs picked this round that wait (now or after a stop hold frees their GPUs);
  // false when some picked job could not start yet.
  bool start_picked(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts);
  std::vector<double> throughputs_of(const PendingJob& job) const;
  void forget(workload::JobId id);

  Scheduler& s_;
  GavelSettings settings_;
  const perf::PerfModel& perf_;
  std::vector<GpuType> types_;                 // fastest first, as Gavel lists them
  std::vector<cluster::ModelId> type_models_;  // the catalog model of each type
  std::map<workload::JobId, Job> jobs_;        // active jobs, in id order (the matrix's rows)
  bool changed_ = true;                        // the job set changed since X was computed
  bool due_ = false;                           // a round is due at the next decision
  bool timer_set_ = false;                     // the next round's timer is pending
  engine::Time reset_at_ = 0;                  // when `received` was last reset
  engine::Time next_round_at_ = -1;            // the pending round timer's instant
  std::uint64_t rounds_ = 0, allocations_ = 0;
  FinishTimeProgram ftf_;  // finish-time fairness's program, kept between rounds (warm starts)
};

}  // namespace schedlab::sched::gavel
