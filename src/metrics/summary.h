// The headline figures of a run: jobs, completion and waiting times, makespan, GPU
// utilization and fragmentation, and what stops cost (preemptions, failures, lost GPU time,
// goodput) and who got the GPUs (fairness); then jobs without GPUs, GPU jobs' waits and CPU
// utilization; in a run with pools, the same per pool and how fairly each got its due.
// Computed from a Collector; printed and written as JSON.
#pragma once

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "metrics/collector.h"
#include "metrics/long_running_stats.h"
#include "metrics/offered_load.h"
#include "metrics/recorded_wait.h"

namespace schedlab::metrics {

// A figure with no value (a mean over no jobs, Jain's index of fewer than two users): NaN
// inside the program only. Files write it as JSON null or an empty CSV field, tables as "-".
inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();
inline bool has_value(double v) { return !std::isnan(v); }

// The percentile method of every percentile schedlab reports (summary.json's
// `percentile_method`): linear interpolation between the closest ranks, as numpy's and
// pandas' default (docs/metrics.md).
inline constexpr const char* kPercentileMethod = "linear";

// One pool of the run (results/README.md, "Pools"). Job figures cover the jobs of the pool and
// of the pools under it; waits and JCTs leave services out (they run until stopped).
struct PoolSummary {
  std::string name;
  std::string parent;       // "" at the top
  std::uint32_t depth = 0;  // 0 at the top
  std::uint64_t jobs = 0, finished = 0, dropped = 0;
  double first_wait_mean_s = kNoValue, first_wait_p95_s = kNoValue;  // finished jobs other than services
  double queueing_delay_mean_s = kNoValue;
  double jct_mean_s = kNoValue, jct_p95_s = kNoValue;
  // Time averages from the run's first instant to its end.
  double gpus_allocated_mean = 0, gpus_entitled_mean = 0;
  // Time average, over the time the pool was due GPUs (due = min(entitlement, demand) > 0),
  // of min(1, GPUs held / due): 1 = it always held what it was entitled to and wanted.
  // Nothing when it was never due any.
  std::optional<double> fairness;
};

// Every figure's definition is in docs/metrics.md; the list of figures, their units and the
// order they are printed in is in summary_figures.h (one table for the printed summary,
// summary.json and the compare table).
struct Summary {
  std::uint64_t jobs = 0;
  std::uint64_t finished = 0;
  std::uint64_t dropped = 0;
  std::uint64_t skipped_rows = 0;
  // The trace's rows left out, per reason (JobSource::skipped_by_reason); they add up to
  // skipped_rows.
  std::vector<std::pair<std::string, std::uint64_t>> skipped_by_reason;
  std::uint64_t total_gpus = 0;
  // What the workload asked of the cluster (metrics/offered_load.h); set by the run.
  OfferedLoad offered_load;
  // Over finished jobs other than services.
  double jct_mean_s = kNoValue, jct_p50_s = kNoValue, jct_p95_s = kNoValue, jct_p99_s = kNoValue;
  double queueing_delay_mean_s = kNoValue, queueing_delay_p50_s = kNoValue, queueing_delay_p95_s = kNoValue,
         queueing_delay_p99_s = kNoValue;
  double first_wait_mean_s = kNoValue, first_wait_p95_s = kNoValue;
  double slowdown_mean = kNoValue;  // over jobs that ran more than 0 s
  double bounded_slowdown_mean = kNoValue, bounded_slowdown_p95 = kNoValue;
  double makespan_s = 0;
  double gpu_hours = 0;
  // The measurement window (from the first to the last submission unless metrics.window and
  // metrics.warmup_s say otherwise); kNoValue when it is empty.
  double window_start_s = kNoValue, window_end_s = kNoValue;
  double gpu_utilization = kNoValue;  // GPU-time held in the window / (GPUs x window)
  double cpu_utilization = kNoValue;  // the same for CPUs
  double fragmentation = kNoValue;    // time-averaged share of GPUs free but unusable by the head job, in the window
  double gpu_utilization_makespan = 0;  // GPU-time held / (GPUs x makespan): the drain tail included
  double cpu_utilization_makespan = 0;
  std::uint64_t failed = 0;       // jobs terminated after their last retry
  std::uint64_t preemptions = 0;  // stops by preemption, over all jobs
  std::uint64_t failures = 0;     // stops by a host or GPU failure, over all jobs
  double lost_gpu_hours = 0;      // work thrown away plus checkpoint save and restore time
  double goodput = 1;             // useful / allocated GPU-time; useful = allocated - lost
  // Jain's index of GPU-hours per user (of jobs not dropped); kNoValue with fewer than 2 users.
  double jain_fairness = kNoValue;
  // Finish-time fairness (Themis' rho): JCT / run time alone, per finished job, with the
  // traced duration as "alone".
  double ftf_rho_max = kNoValue, ftf_rho_p95 = kNoValue;
  // Jobs that need no GPU (CPU-only) that finished; first waits of the jobs that need GPUs
  // alone (what keeping GPU hosts for GPU jobs changes).
  std::uint64_t finished_without_gpu = 0;
  double gpu_job_first_wait_mean_s = kNoValue, gpu_job_first_wait_p95_s = kNoValue;
  // Per service and cron entry of the scenario, in its order (metrics/long_running_stats.h).
  std::vector<ServiceFigures> services;
  std::vector<CronFigures> cron;
  // Pools, in the tree's order (empty without pools), and the least fairness of a pool that
  // jobs go to (a leaf); nothing when no such pool was ever due GPUs. Not among figures(): a
  // compared variant may have no pools.
  std::vector<PoolSummary> pools;
  std::optional<double> pool_fairness_min;
  // Where the trace recorded waits: those beside the simulated first waits (metrics/recorded_wait.h);
  // nothing otherwise. Not among figures(), as pools.
  std::optional<RecordedWaitComparison> recorded_wait;

  // Name/value pairs in the order of summary_figures(); kNoValue where a figure has none.
  std::vector<std::pair<std::string, double>> figures() const;
};

Summary summarize(const Collector& c, std::uint64_t skipped_rows);

// Percentile of sorted values (p in [0, 100]) by linear interpolation between the closest
// ranks (kPercentileMethod): rank h = (n - 1) p / 100, value v[floor h] + (h - floor h)
// (v[floor h + 1] - v[floor h]); 0 for none (callers that report "none" check first).
double percentile(const std::vector<double>& sorted, double p);

// Jain's fairness index (sum x)^2 / (n sum x^2): 1 when all equal, 1/n when one gets all;
// kNoValue for fewer than 2 values (nothing to be fair between); 1 when all are zero.
double jain_index(const std::vector<double>& values);

// Bounded slowdown of one job (the HPC convention, Feitelson): max(1, (wait + run) /
// max(run, bound)), bound 10 s (kSlowdownBound_s), so that jobs of a few seconds do not dominate.
inline constexpr double kSlowdownBound_s = 10;
double bounded_slowdown(double jct_s, double run_s);

}  // namespace schedlab::metrics
