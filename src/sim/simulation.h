// One simulated run: pulls jobs from a JobSource (and failures from a FailureSource),
// drives the scheduler once per instant of the engine's clock, starts and stops runs
// through the executor, and reports to observers. It owns each job's life (attained
// service, checkpoints, lost work, retries) in its job table (sim/job_table.h), which the
// scheduler reads as a JobLedger; stops are priced by sim/stop_accounting.h, and what the
// outside may look at is read by sim/run_inspector.h.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cluster/allocation.h"
#include "engine/event_queue.h"
#include "lifecycle/failure_source.h"
#include "lifecycle/lifecycle_config.h"
#include "metrics/observer.h"
#include "perf/perf_model.h"
#include "sched/job_life.h"
#include "sched/scheduler.h"
#include "sim/clock.h"
#include "sim/executor.h"
#include "sim/job_table.h"
#include "sim/model_requests.h"
#include "sim/run_inspector.h"
#include "pools/pools_config.h"
#include "pools/pool_assigner.h"
#include "pools/pool_book.h"
#include "util/notice.h"
#include "workload/long_running.h"

namespace schedlab::sim {

struct SimulationStats {
  std::uint64_t events = 0;
  std::uint64_t instants = 0;
  std::uint64_t jobs = 0;
  std::uint64_t preemptions = 0;
  std::uint64_t failures = 0;  // failure events that struck (hosts or GPUs)
  engine::Time end_time = 0;
};

// What turns the run into an emulation (emu/): a wall clock that also delivers events from
// outside, and an executor that runs real processes. Both null: a simulation.
struct Driver {
  Clock* clock = nullptr;
  Executor* executor = nullptr;
};

class Simulation final : private OutsideEvents {
 public:
  Simulation(const cluster::Topology& topo, const sched::SchedulerConfig& scheduler, workload::JobSource& source,
             perf::PerfModel& perf, metrics::RunObserver& observer, std::string trace_name,
             lifecycle::LifecycleConfig lifecycle = {}, lifecycle::FailureSource* failures = nullptr,
             Driver driver = {}, util::Notices* notices = nullptr);

  // The scenario's pools (before run()): each arriving job is given its pool, and the
  // scheduler keeps the pools' usage and entitlements (observers see them at each instant).
  void use_pools(const pools::PoolsConfig& config, std::uint64_t seed);
  // Why a job waits now, as the emulator's queue view says it ("" when it does not wait in the
  // queue): behind which job and at which place, or, first in line, what it lacks.
  std::string waiting_reason(workload::JobId id) const { return inspector_.waiting_reason(id); }
  // The scheduler notes which of its parts refuses this job, for waiting_reason.
  void watch(workload::JobId id) { scheduler_.watch(id); }
  // The scenario's services and cron entries (before run()): their jobs come from the source
  // (workload::MixedSource); this gives the rules the run applies to them.
  void use_long_running(const workload::LongRunningWork& work);

  SimulationStats run();

 private:
  // OutsideEvents (an emulation's clock calls these in the loop's thread)
  void run_ended(RunId run, engine::Time now) override;
  void run_failed(RunId run, cluster::HostId host, engine::Time now) override;
  void host_lost(cluster::HostId host, engine::Time now) override;
  void host_back(cluster::HostId host, engine::Time now) override;
  workload::JobId submit(const SubmittedJob& job, engine::Time now) override;
  std::optional<std::string> never_runs(const SubmittedJob& job) override;
  workload::JobId arrive_from_outside(workload::JobSpec spec, engine::Time now);
  bool kill(workload::JobId id, engine::Time now) override;
  std::optional<ServiceScaled> scale_service(const std::string& name, std::uint32_t instances,
                                             engine::Time now) override;
  void inspect(RunView& out, std::size_t limit, bool queue_only) const override;

  bool pull_next_job();
  void pull_next_failure();
  void handle(const engine::Event& e);
  void arrive(workload::JobId id, engine::Time now);
  void complete(RunId id, engine::Time now);
  void start_decided(engine::Time now);
  void apply_stops(engine::Time now);
  // Stops all of the job's runs at `now`. `released`: the scheduler freed its GPUs already.
  // A graceful stop keeps them for `hold` while it saves; a failure is never graceful.
  void stop_job(workload::JobId id, engine::Time now, sched::StopCause cause, workload::JobId by, bool released,
                engine::Time hold, cluster::HostId host);
  // The stopped job frees its GPUs (now, or when its save ends) and waits again or fails.
  void finish_stop(workload::JobId id, engine::Time now, bool free_gpus);
  void fail_host(const lifecycle::FailureEvent& f, engine::Time now);
  // A failure cuts the stopping job's save short: it keeps its periodic checkpoint only.
  void cut_save(workload::JobId id, engine::Time now, sched::StopCause cause, cluster::HostId host);
  void job_left(workload::JobId id);
  // Elastic jobs (sim/simulation_resize.cpp). At arrival: refuses a range the perf model or
  // cluster cannot honour, or says once that the scheduler runs elastic jobs at their traced size.
  void check_elastic(const workload::JobSpec& job);
  // A resize's stop: the job keeps all its work and waits for the restart the same pass decided.
  void resize_stop(workload::JobId id, engine::Time now);
  // The wall time the restart after a resize holds its GPUs without progress.
  engine::Time resize_cost(const JobRecord& rt) const;
  bool said_rigid_elastic_ = false;
  // Arrival and end of services and cron occurrences (sim/simulation_long_running.cpp).
  enum class Arrival { go, held, skipped };
  // A service or cron group the scenario did not list (a trace's rows): default rules, and a
  // line of its own in the summary.
  void note_group(const workload::JobSpec& job);
  // A cron occurrence's overlap and parents: it goes to the scheduler now, waits for
  // parents, or is skipped.
  Arrival cron_arrives(workload::JobId id, engine::Time now);
  // Submits to the scheduler (or drops, with the scheduler's reason); `announce`: observers
  // learn of the job now (a held occurrence was announced when it arrived).
  void enter_scheduler(workload::JobId id, engine::Time now, bool announce);
  void skip(workload::JobId id, engine::Time now, const std::string& reason);
  void cron_ended(workload::JobId id);
  // Occurrences whose parents ended at this instant go to the scheduler, or are skipped.
  void release_held(engine::Time now);
  // A service instance ends: its span is over, or the run's other work is done.
  void retire(workload::JobId id, engine::Time now);
  void end_retired(workload::JobId id, engine::Time now);
  void retire_with_the_run(engine::Time now);
  // The time a failed service instance waits before it asks for resources again.
  engine::Time backoff(const workload::JobSpec& job, std::uint32_t failures) const;
  // The services' part of the API's view.
  void describe_services(RunView& out) const;
  // Frees the job's runs (the GPUs too, with `free_gpus`) and settles what it held; `ends`:
  // its last run ends the job (observers see a completed run).
  void release_runs(workload::JobId id, engine::Time now, bool free_gpus, bool ends);

  const cluster::Topology& topo_;
  workload::JobSource& source_;
  perf::PerfModel& perf_;
  metrics::RunObserver& observer_;
  util::Notices* notices_;  // the run's (null: none said)
  std::string trace_name_;
  std::unique_ptr<pools::PoolBook> pool_book_;
  std::unique_ptr<pools::PoolAssigner> pool_assigner_;
  lifecycle::LifecycleConfig lifecycle_;
  lifecycle::FailureSource* failures_;
  engine::EventQueue queue_;
  cluster::AllocationState alloc_;
  ModelRequests requests_;
  std::unique_ptr<Executor> own_executor_;  // the simulate executor, unless the driver gives one
  Executor* executor_;
  Clock* clock_;
  JobTable jobs_;  // before the scheduler, which reads it
  sched::Scheduler scheduler_;
  std::unordered_set<workload::JobId> outside_jobs_;  // submitted from outside, not yet arrived
  RunInspector inspector_;
  bool source_done_ = false;
  std::vector<lifecycle::FailureEvent> pending_failures_;  // by event subject
  std::vector<std::pair<cluster::HostId, std::uint16_t>> repairs_;  // by event subject
  std::vector<std::pair<RunId, cluster::HostId>> run_failures_;      // by event subject
  std::unordered_map<cluster::HostId, std::uint16_t> lost_down_;    // GPUs set down when lost from outside
  std::vector<sched::StartDecision> starts_;
  std::vector<sched::StopDecision> stops_;
  std::vector<sched::TimerRequest> timers_;
  SimulationStats stats_;
  // Services and cron entries
  struct ServiceState {
    engine::Time backoff = 0, max_backoff = 0;
    double factor = 1;
    std::optional<workload::JobSpec> instance;  // the first instance to arrive: the shape of new ones
    std::set<workload::JobId> wanted;            // active instances not retired, oldest first
    std::uint32_t next_index = 0;                // the name suffix a new instance gets
    std::size_t order = 0;                       // first appearance
    bool planned = false;                        // a scenario's (its instance names are known ahead)
  };
  struct CronEntry {
    std::vector<workload::Label> parents;
    bool skip_overlap = false;
    workload::JobId last = sched::kNoJob;  // its latest occurrence
    bool last_failed = false;              // that occurrence ended without finishing
  };
  std::unordered_map<workload::Label, ServiceState> service_state_;
  std::unordered_map<std::string, workload::Label> service_names_;
  void service_arrived(const workload::JobSpec& job);
  ServiceState& add_service_state(workload::Label group, const std::string& name, const workload::ServiceSpec& rules);
  std::unordered_map<workload::Label, CronEntry> cron_entries_;
  std::unordered_map<workload::JobId, std::vector<workload::JobId>> held_by_;  // an occurrence -> children waiting for it
  std::unordered_map<workload::JobId, std::uint32_t> waiting_for_;           // a held child -> parents it waits for
  std::vector<std::pair<workload::JobId, bool>> ended_parents_;  // occurrences with held children that ended this instant (failed?)
  std::set<workload::JobId> live_services_;     // instances that last as long as the run's other work
  std::uint64_t active_batch_ = 0;              // active jobs that are not services
};

}  // namespace schedlab::sim
