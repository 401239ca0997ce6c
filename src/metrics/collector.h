// Collects per-job records and the utilization timeline from a run's observer calls, and in a
// run with pools each pool's allocation and entitlement over time (pools-timeline.csv).
// Invariant kept for tests: the GPU-time of all runs equals the integral of utilization.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/topology.h"
#include "metrics/measure_window.h"
#include "metrics/observer.h"
#include "util/chunked_vector.h"
#include "util/notice.h"

namespace schedlab::metrics {

// Fields ordered by size: a million of these are kept for jobs.csv.
struct JobRecord {
  std::uint64_t trace_number = 0;
  engine::Time duration = 0;  // traced run time: the job "alone", for finish-time fairness
  engine::Time submit = 0;
  engine::Time start = -1;  // first task start; -1 if never started
  engine::Time end = -1;    // last task end; -1 if never ended
  // Wall time it held resources (from a run's first task start to its last task's end or, when
  // stopped, to the moment its resources were freed), over its ended runs: its run time.
  engine::Time held = 0;
  cluster::ModelMask models = 0;
  // Its life, as of its last life event (final at finish or fail).
  double attained_gpu_us = 0;  // GPU-microseconds held over its ended runs
  double lost_gpu_us = 0;      // of which thrown away, saving or restoring
  workload::JobId id = 0;
  workload::Label trace_id = workload::kNoLabel;
  workload::Label user = workload::kNoLabel;
  std::uint32_t tasks = 0;
  std::uint32_t gpus_per_task = 0;
  std::uint32_t hosts = 0;
  std::uint32_t racks = 0;
  // Settled: index into the collector's text arena. While it runs (`running_slot`): its slot
  // among the collector's active placements (a slot pool, so no hashing or allocating per start).
  std::uint32_t placement = 0;
  std::uint32_t drop_reason = 0;  // index into the arena; 0 = not dropped
  std::uint32_t preemptions = 0;
  std::uint32_t failures = 0;
  std::uint32_t restarts = 0;
  std::uint32_t cpu_milli = 0;  // per task
  std::uint32_t mem_mib = 0;    // per task
  std::uint16_t gpu_milli = 1000;
  sched::JobState state = sched::JobState::pending;
  workload::JobKind kind = workload::JobKind::batch;
  bool dropped = false;
  bool new_attempt = false;  // stopped: its next start begins a new placement
  bool running_slot = false;  // `placement` is a slot of active placements, not yet text
};

// Time integrals of the cluster's state from the start of the run to some instant.
struct Integrals {
  double gpu_milli_us = 0;   // GPU-thousandth-microseconds held
  double cpu_milli_us = 0;   // CPU-thousandth-microseconds held
  double fragmented_us = 0;  // fragmented-GPU-microseconds
};

// The measurement window as it resolved in a run, and the integrals over it.
struct WindowFigures {
  engine::Time start = 0, end = 0;  // end > start
  Integrals within;                 // integrals from start to end
};

struct TimelineRow {
  engine::Time start = 0, end = 0;
  double used_gpus = 0;       // time-averaged GPUs held (shares counted as fractions)
  double running_jobs = 0;
  double pending_jobs = 0;
  double free_gpus = 0;
  double fragmented_gpus = 0;
  double down_gpus = 0;
  double used_cpus = 0;       // time-averaged CPUs held
};

// A pool of the run's scenario, as the results name it (in the tree's order: parents first).
struct PoolInfo {
  std::string name;
  std::int32_t parent = -1;  // index into Collector::pools(); -1 at the top
  bool leaf = true;
};

// One pool over one timeline row, time-averaged like TimelineRow. Entitlement is a step
// function too (it changes at each recomputation), so it is averaged the same way.
struct PoolCell {
  double gpus_allocated = 0, gpus_entitled = 0;
  double cpus_allocated = 0, cpus_entitled = 0;
  double mem_gb_allocated = 0, mem_gb_entitled = 0;
  double pending_gpus = 0;  // GPUs its jobs wait for
};
// Every field of a PoolCell, for code that treats them alike (sums, averages).
inline constexpr double PoolCell::*kPoolCellFields[] = {
    &PoolCell::gpus_allocated,   &PoolCell::gpus_entitled,   &PoolCell::cpus_allocated, &PoolCell::cpus_entitled,
    &PoolCell::mem_gb_allocated, &PoolCell::mem_gb_entitled, &PoolCell::pending_gpus};

// One pool over the run, from the first instant on: integrals over time (microseconds).
struct PoolTotals {
  double gpus_allocated_us = 0;  // GPU-microseconds held
  double gpus_entitled_us = 0;   // GPU-microseconds entitled to
  // Fairness: while the pool is due GPUs (due = min(entitlement, demand) > 0, demand = held
  // plus waited for, at most its limit), the integral of min(1, held / due), and that time.
  double served_us = 0;
  double due_us = 0;
};

// The timeline never holds more rows than this (README.md, "Results"): a run whose span needs
// more at the scenario's interval gets a coarser one (the interval doubled until it fits), with
// one notice on stderr. Memory and timeline.csv stay bounded whatever the trace's times.
inline constexpr std::size_t kMaxTimelineRows = 100'000;
// With pools, also rows x pools (pools-timeline.csv's rows) stay at most this.
inline constexpr std::size_t kMaxPoolTimelineRows = 1'000'000;

class Collector final : public RunObserver {
 public:
  static constexpr workload::JobId kFreeSlot = ~workload::JobId{0};

  // `notices`: where the coarsening notice goes at the end of the run (the run's; null: not said).
  // `window`: the span of the time-averaged summary figures (measure_window.h).
  Collector(const cluster::Topology& topo, engine::Time timeline_interval, util::Notices* notices = nullptr,
            MeasureWindow window = {});

  void on_submit(const workload::JobSpec& job, engine::Time now) override;
  void on_drop(const workload::JobSpec& job, engine::Time now, const std::string& reason) override;
  void on_start(const workload::JobSpec& job, const cluster::Placement& tasks, engine::Time now, bool first) override;
  void on_run_end(const workload::JobSpec& job, const cluster::Placement& tasks, engine::Time start, engine::Time now,
                  bool job_done) override;
  void on_life(const LifeEvent& event) override;
  void on_instant(const InstantState& state) override;
  void on_finish(engine::Time now) override;

  const util::ChunkedVector<JobRecord>& jobs() const { return jobs_; }
  const std::vector<TimelineRow>& timeline() const { return timeline_; }
  // The interval the timeline's rows have: the scenario's, or coarser when the run was long.
  engine::Time timeline_interval() const { return interval_; }
  engine::Time requested_interval() const { return requested_interval_; }
  std::string_view text(std::uint32_t index) const {
    return std::string_view(text_chars_).substr(text_at_[index], text_at_[index + 1] - text_at_[index]);
  }
  // GPU-thousandth-microseconds held by all runs, summed run by run...
  double run_gpu_seconds() const { return run_milli_us_ / 1e9; }
  // ...and the same figure as the integral of the utilization timeline.
  double integral_gpu_seconds() const { return integral_milli_us_ / 1e9; }
  // Time-integral of fragmented GPUs while a job was pending, in GPU-seconds.
  double fragmented_gpu_seconds() const { return frag_us_ / 1e6; }
  // Time-integral of CPUs held, in CPU-seconds.
  double cpu_seconds() const { return cpu_milli_us_ / 1e9; }
  // The scenario's pools (empty without pools), known from the run's first instant.
  const std::vector<PoolInfo>& pools() const { return pools_; }
  bool has_pools() const { return !pools_.empty(); }
  // Pool `pool` over timeline row `row`.
  const PoolCell& pool_cell(std::size_t row, std::size_t pool) const {
    return pool_timeline_[row * pools_.size() + pool];
  }
  const PoolTotals& pool_totals(std::size_t pool) const { return pool_totals_[pool]; }
  // The time the pool figures cover: from the first instant to the end of the run.
  double pool_span_seconds() const { return pool_span_us_ / 1e6; }
  // With pools (after the run): the index of the job's pool, -1 for none.
  std::int32_t job_pool(workload::JobId id) const {
    return id < job_pool_.size() ? static_cast<std::int32_t>(job_pool_[id]) - 1 : -1;
  }
  // Without pools: the trace's pool label of the job (kNoLabel for none).
  workload::Label job_pool_label(workload::JobId id) const { return id < job_pool_.size() ? job_pool_[id] : 0; }
  // The measurement window and the integrals over it, after the run; nothing when it is empty
  // (it ends where it starts or before: one submission, or a warm-up past the last one).
  std::optional<WindowFigures> window() const;
  engine::Time first_submit() const { return first_submit_; }
  engine::Time last_submit() const { return last_submit_; }
  engine::Time last_end() const { return last_end_; }
  const cluster::Topology& topology() const { return *topo_; }
  // Whether some job's trace recorded its wait (jobs.csv then has recorded_wait_s).
  bool has_recorded_waits() const { return !recorded_wait_.empty(); }
  // The job's recorded wait (workload/job_spec.h), or workload::kNoRecordedWait.
  std::uint32_t recorded_wait_s(workload::JobId id) const {
    return id < recorded_wait_.size() ? recorded_wait_[id] : workload::kNoRecordedWait;
  }

 private:
  JobRecord& record(const workload::JobSpec& job) {
    if (job.id >= jobs_.size()) jobs_.resize(job.id + 1);
    return jobs_[job.id];
  }
  // The job's record, with what its spec says copied in (once, when it is submitted).
  JobRecord& new_record(const workload::JobSpec& job);
  // Fills the placement columns from the tasks of the job's current (or last) attempt.
  void settle_placement(JobRecord& r);
  void accumulate(engine::Time until);
  // Start of the row holding time t: rows are whole intervals counted from origin_.
  engine::Time bucket_of(engine::Time t) const;
  // Doubles the interval until a timeline reaching `until` fits in kMaxTimelineRows (with
  // pools, and its pool rows in kMaxPoolTimelineRows).
  void fit_rows(engine::Time until);
  void coarsen();
  // Appends the row starting at `start` (and its pool cells).
  void push_row(engine::Time start);
  // Takes the pools' figures as they stand at `now` (the first time, the tree too); a pool
  // whose figures changed first adds what it had since its last change to the rows and totals.
  void take_pools(const pools::PoolBook& book, engine::Time now);
  // Adds pool p's figures from its last change to `until` to its rows and totals.
  void flush_pool(std::size_t p, engine::Time until);
  std::uint32_t add_text(std::string_view s);
  // Ends the text appended to text_chars_ since the last one: its index.
  std::uint32_t end_text();
  // A submission at `now`: the first one fixes the default window start, each one the default end.
  void submitted(engine::Time now);
  // The integrals from the start of the run to t, for t at or after the last instant (the
  // state of the last instant held since); after the run, the final integrals.
  Integrals integrals_at(engine::Time t) const;
  // Takes the window's edges that fall before `until` (called before integrating up to it).
  void take_edges(engine::Time until);

  const cluster::Topology* topo_;
  engine::Time interval_;
  engine::Time requested_interval_;
  engine::Time origin_ = 0;  // start of the first row, a multiple of the requested interval
  bool have_origin_ = false;
  util::Notices* notices_;
  util::ChunkedVector<JobRecord> jobs_;
  // Texts (placements, drop reasons) end to end in one buffer, text i at
  // [text_at_[i], text_at_[i + 1]): no string object or allocation per job.
  std::string text_chars_;
  std::vector<std::uint64_t> text_at_{0, 0};  // text 0 = ""
  // Tasks of started, unfinished jobs, by slot (JobRecord::placement); freed slots are reused
  // with their capacity. active_job_[slot] is the job in it, kFreeSlot when free.
  std::vector<cluster::Placement> active_;
  std::vector<workload::JobId> active_job_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<TimelineRow> timeline_;
  InstantState last_;
  bool have_last_ = false;
  double run_milli_us_ = 0;
  double integral_milli_us_ = 0;
  double frag_us_ = 0;
  double cpu_milli_us_ = 0;
  engine::Time first_submit_ = -1;
  engine::Time last_submit_ = -1;
  // The measurement window: its edges once known, and the integrals there once passed.
  MeasureWindow window_;
  std::optional<engine::Time> window_start_, window_end_;
  std::optional<Integrals> at_start_, at_end_;
  Integrals at_last_submit_;
  bool finished_ = false;
  engine::Time last_end_ = 0;
  // Pools: nothing here is touched in a run without them (pools_ stays empty).
  const pools::PoolBook* book_ = nullptr;
  std::vector<PoolInfo> pools_;
  std::vector<PoolCell> pool_now_;        // per pool: its figures since pool_since_
  std::vector<double> pool_due_;          // per pool: min(entitlement, demand) in GPUs, since pool_since_
  std::vector<engine::Time> pool_since_;  // per pool: its last change not yet in its rows and totals
  std::vector<std::uint64_t> pool_seen_;  // per pool: the book's changes() when it was last read
  std::vector<PoolCell> pool_timeline_;   // row-major: row r, pool p at r * pools + p
  std::vector<PoolTotals> pool_totals_;
  engine::Time pool_first_ = 0;  // the first instant (pools are known from there)
  double pool_span_us_ = 0;      // set at the end of the run
  // By job id, only as far as needed: the trace's pool label (set when not empty); with pools,
  // replaced at the end of the run by 1 + the index of the job's pool (0 = none).
  std::vector<std::uint32_t> job_pool_;
  // By job id, only as far as needed (empty for a trace without a record): the recorded wait.
  // Beside the records, not in them: a field there would cost 8 bytes a job in every run.
  std::vector<std::uint32_t> recorded_wait_;
};

}  // namespace schedlab::metrics
