// The headline figures of a run: jobs, completion and waiting times, makespan, GPU
// utilization and fragmentation, and what stops cost (preemptions, failures, lost GPU time,
// goodput) and who got the GPUs (fairness); then jobs without GPUs, GPU jobs' waits and CPU
// utilization; in a run with pools, the same per pool and how fairly each got its due.
// Computed from a Collector; printed and written as JSON.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "metrics/collector.h"
#include "metrics/long_running_stats.h"
#include "metrics/offered_load.h"

namespace schedlab::metrics {

// One pool of the run (results/README.md, "Pools"). Job figures cover the jobs of the pool and
// of the pools under it; waits and JCTs leave services out (they run until stopped).
struct PoolSummary {
  std::string name;
  std::string parent;       // "" at the top
  std::uint32_t depth = 0;  // 0 at the top
  std::uint64_t jobs = 0, finished = 0, dropped = 0;
  double wait_mean_s = 0, wait_p95_s = 0;  // finished jobs other than services
  double jct_mean_s = 0, jct_p95_s = 0;
  // Time averages from the run's first instant to its end.
  double gpus_allocated_mean = 0, gpus_entitled_mean = 0;
  // Time average, over the time the pool was due GPUs (due = min(entitlement, demand) > 0),
  // of min(1, GPUs held / due): 1 = it always held what it was entitled to and wanted.
  // Nothing when it was never due any.
  std::optional<double> fairness;
};

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
  double jct_mean_s = 0, jct_p50_s = 0, jct_p95_s = 0, jct_p99_s = 0;
  double wait_mean_s = 0, wait_p95_s = 0;
  double makespan_s = 0;
  double gpu_hours = 0;
  double gpu_utilization = 0;  // GPU-time held / (GPUs x makespan)
  double fragmentation = 0;    // time-averaged share of GPUs free but unusable by the head job
  std::uint64_t failed = 0;       // jobs terminated after their last retry
  std::uint64_t preemptions = 0;  // stops by preemption, over all jobs
  std::uint64_t failures = 0;     // stops by a host or GPU failure, over all jobs
  double lost_gpu_hours = 0;      // work thrown away plus checkpoint save and restore time
  double goodput = 1;             // useful / allocated GPU-time; useful = allocated - lost
  double jain_fairness = 1;       // Jain's index of GPU-hours per user (of jobs not dropped); 1 = all equal
  // Finish-time fairness (Themis' rho): JCT / run time alone, per finished job, with the
  // traced duration as "alone".
  double ftf_rho_max = 0, ftf_rho_p95 = 0;
  // Jobs that need no GPU (CPU-only) that finished; waits of the jobs that need GPUs alone
  // (what keeping GPU hosts for GPU jobs changes); CPU-time held / (CPUs x makespan).
  std::uint64_t finished_without_gpu = 0;
  double gpu_job_wait_mean_s = 0, gpu_job_wait_p95_s = 0;
  double cpu_utilization = 0;
  // Per service and cron entry of the scenario, in its order (metrics/long_running_stats.h).
  std::vector<ServiceFigures> services;
  std::vector<CronFigures> cron;
  // Pools, in the tree's order (empty without pools), and the least fairness of a pool that
  // jobs go to (a leaf); nothing when no such pool was ever due GPUs. Not among figures(): a
  // compared variant may have no pools.
  std::vector<PoolSummary> pools;
  std::optional<double> pool_fairness_min;

  // Name/value pairs in the order tables print them.
  std::vector<std::pair<std::string, double>> figures() const;
};

Summary summarize(const Collector& c, std::uint64_t skipped_rows);

// Nearest-rank percentile of sorted values (p in [0, 100]); 0 for none.
double percentile(const std::vector<double>& sorted, double p);

// Jain's fairness index (sum x)^2 / (n sum x^2): 1 when all equal, 1/n when one gets all;
// 1 for no values or all zero.
double jain_index(const std::vector<double>& values);

}  // namespace schedlab::metrics
