// Summary statistics of a trace, for `schedlab trace stats`: size, span, GPU-count
// histogram, duration percentiles, GPU-hours by size class, arrivals by hour of day and
// the share of multi-host jobs.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "workload/job_spec.h"

namespace schedlab::workload {

struct TraceStats {
  std::uint64_t jobs = 0;
  std::uint64_t skipped_rows = 0;
  std::vector<std::pair<std::string, std::uint64_t>> skipped_by_reason;  // adds up to skipped_rows
  std::string declarations;  // what the header declares (JobSource::declarations)
  double first_submit_s = 0, last_submit_s = 0;
  std::map<double, std::uint64_t> gpu_histogram;  // GPUs per job (shares as fractions) -> jobs
  std::vector<double> duration_percentiles_s;     // at kPercentiles
  std::map<std::string, double> gpu_hours_by_class;
  std::array<std::uint64_t, 24> arrivals_by_hour{};  // hour of day since trace start
  std::uint64_t multi_task_jobs = 0;
  // Per workload type (Acme's Pretrain, SFT, ...), when the trace gives one: jobs, GPU-hours.
  std::map<std::string, std::pair<std::uint64_t, double>> by_job_type;
  double total_gpu_hours = 0;

  static constexpr std::array<double, 6> kPercentiles = {10, 50, 90, 95, 99, 100};
};

// GPUs one job asks for, as `trace stats` counts them: a fractional task counts its share, a
// CPU job 0; and its GPU-hours (those GPUs times its duration). The load-keeping generator
// (workload/trace_resample.h) uses the same figures, so its load is the one `trace stats` shows.
double job_gpus(const JobSpec& j);
double job_gpu_hours(const JobSpec& j);

TraceStats compute_trace_stats(JobSource& source);
std::string format_trace_stats(const TraceStats& s, const std::string& name);
// The same figures as one JSON document (`trace stats --format json`), numbers unrounded.
std::string trace_stats_json(const TraceStats& s, const std::string& name);

}  // namespace schedlab::workload
