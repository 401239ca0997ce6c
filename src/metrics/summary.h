// The headline figures of a run: jobs, completion and waiting times, makespan, GPU
// utilization and fragmentation. Computed from a Collector; printed and written as JSON.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "metrics/collector.h"

namespace schedlab::metrics {

struct Summary {
  std::uint64_t jobs = 0;
  std::uint64_t finished = 0;
  std::uint64_t dropped = 0;
  std::uint64_t skipped_rows = 0;
  std::uint64_t total_gpus = 0;
  double jct_mean_s = 0, jct_p50_s = 0, jct_p95_s = 0, jct_p99_s = 0;
  double wait_mean_s = 0, wait_p95_s = 0;
  double makespan_s = 0;
  double gpu_hours = 0;
  double gpu_utilization = 0;  // GPU-time held / (GPUs x makespan)
  double fragmentation = 0;    // time-averaged share of GPUs free but unusable by the head job

  // Name/value pairs in the order tables print them.
  std::vector<std::pair<std::string, double>> figures() const;
};

Summary summarize(const Collector& c, std::uint64_t skipped_rows);

// Nearest-rank percentile of sorted values (p in [0, 100]); 0 for none.
double percentile(const std::vector<double>& sorted, double p);

}  // namespace schedlab::metrics
