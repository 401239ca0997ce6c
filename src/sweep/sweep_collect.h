// Gathers a sweep's cells into two tidy tables: sweep.csv, one row per cell and metric with
// every grid key as a column (pandas' read_csv and R's read.csv take it as it is), and
// sweep-summary.csv, one row per grid point and metric with the mean, standard deviation and
// 95% confidence interval over its seeds. The metrics are summary.json's numbers.
#pragma once

#include <string>
#include <vector>

#include "sweep/sweep_folder.h"
#include "sweep/sweep_stats.h"

namespace schedlab::sweep {

struct PointSummary {
  std::vector<std::string> values;  // the grid point
  std::string metric;
  SeedStats stats;
};

struct Collected {
  std::size_t cells = 0, read = 0;
  std::vector<std::size_t> missing;       // cells without results (not run, running, failed)
  std::vector<std::string> metrics;       // in summary.json's order
  std::vector<PointSummary> summary;      // by grid point, then metric
};

// Writes DIR/sweep.csv and DIR/sweep-summary.csv (each atomically) and returns the summary.
Collected collect(const SweepSpec& spec, const SweepFolder& folder);

// The summary as a table for people: one row per grid point, a few headline metrics as
// mean +/- 95% CI, in units (hours for long times, percentages for shares).
std::string format_collected(const SweepSpec& spec, const Collected& c);

}  // namespace schedlab::sweep
