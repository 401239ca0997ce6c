// One streaming pass over a trace; only durations are kept (for percentiles).
#include "workload/trace_stats.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace schedlab::workload {

namespace {
std::string size_class(double gpus) {
  if (gpus == 0) return "no GPU";  // a CPU job: no GPU-hours
  if (gpus < 1) return "<1 GPU";
  if (gpus <= 1) return "1 GPU";
  if (gpus <= 8) return "2-8 GPUs";
  if (gpus <= 64) return "9-64 GPUs";
  return ">64 GPUs";
}
}  // namespace

double job_gpus(const JobSpec& j) {
  return j.fractional() ? j.gpu_milli / 1000.0 : static_cast<double>(j.total_gpus());
}
double job_gpu_hours(const JobSpec& j) { return job_gpus(j) * engine::to_seconds(j.duration) / 3600.0; }

TraceStats compute_trace_stats(JobSource& source) {
  TraceStats s;
  std::vector<double> durations;
  JobSpec j;
  while (source.next(j)) {
    double submit = engine::to_seconds(j.submit);
    if (s.jobs == 0) s.first_submit_s = submit;
    s.last_submit_s = submit;
    ++s.jobs;
    const double gpus = job_gpus(j);
    ++s.gpu_histogram[gpus];
    durations.push_back(engine::to_seconds(j.duration));
    const double gh = job_gpu_hours(j);
    s.gpu_hours_by_class[size_class(gpus)] += gh;
    s.total_gpu_hours += gh;
    auto hour = static_cast<std::size_t>(std::fmod(std::floor((submit - s.first_submit_s) / 3600.0), 24.0));
    ++s.arrivals_by_hour[hour];
    if (j.tasks > 1) ++s.multi_task_jobs;
    if (j.job_type != kNoLabel) {
      auto& t = s.by_job_type[std::string(source.strings().str(j.job_type))];
      ++t.first;
      t.second += gh;
    }
  }
  s.skipped_rows = source.skipped_rows();
  s.skipped_by_reason = source.skipped_by_reason();
  s.declarations = source.declarations();
  std::sort(durations.begin(), durations.end());
  for (double p : TraceStats::kPercentiles) {
    if (durations.empty()) {
      s.duration_percentiles_s.push_back(0);
      continue;
    }
    auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(durations.size())));
    s.duration_percentiles_s.push_back(durations[std::clamp<std::size_t>(rank, 1, durations.size()) - 1]);
  }
  return s;
}

std::string format_trace_stats(const TraceStats& s, const std::string& name) {
  std::string o = fmt::format("trace: {}\n", name);
  o += fmt::format("  jobs                 {}\n", s.jobs);
  if (!s.declarations.empty()) o += fmt::format("  header               {}\n", s.declarations);
  if (s.skipped_rows) o += fmt::format("  skipped rows         {}\n", s.skipped_rows);
  for (const auto& [reason, n] : s.skipped_by_reason) o += fmt::format("    {:>10}  {}\n", n, reason);
  double span = s.last_submit_s - s.first_submit_s;
  o += fmt::format("  submit span          {:.1f} h ({:.2f} days)\n", span / 3600, span / 86400);
  o += fmt::format("  arrival rate         {:.2f} jobs/h\n", span > 0 ? s.jobs / (span / 3600) : 0.0);
  o += fmt::format("  multi-task jobs      {} ({:.1f}%)\n", s.multi_task_jobs,
                   s.jobs ? 100.0 * s.multi_task_jobs / s.jobs : 0.0);
  o += fmt::format("  GPU-hours            {:.1f}\n", s.total_gpu_hours);
  o += "  duration percentiles (s):";
  for (std::size_t i = 0; i < s.duration_percentiles_s.size(); ++i)
    o += fmt::format(" p{:g}={:.0f}", TraceStats::kPercentiles[i], s.duration_percentiles_s[i]);
  o += "\n  GPUs per job:\n";
  for (const auto& [g, n] : s.gpu_histogram)
    o += fmt::format("    {:>8g} {:>9} ({:.1f}%)\n", g, n, s.jobs ? 100.0 * n / s.jobs : 0.0);
  o += "  GPU-hours by size class:\n";
  for (const auto& [c, h] : s.gpu_hours_by_class)
    o += fmt::format("    {:<10} {:>12.1f} ({:.1f}%)\n", c, h, s.total_gpu_hours > 0 ? 100 * h / s.total_gpu_hours : 0.0);
  if (!s.by_job_type.empty()) {
    o += "  job types:\n";
    for (const auto& [type, t] : s.by_job_type)
      o += fmt::format("    {:<12} {:>9} jobs ({:.1f}%) {:>12.1f} GPU-hours ({:.1f}%)\n", type, t.first,
                       s.jobs ? 100.0 * t.first / s.jobs : 0.0, t.second,
                       s.total_gpu_hours > 0 ? 100 * t.second / s.total_gpu_hours : 0.0);
  }
  o += "  arrivals by hour since trace start (mod 24):\n   ";
  for (std::size_t h = 0; h < 24; ++h) o += fmt::format(" {:02}h:{}", h, s.arrivals_by_hour[h]);
  o += "\n";
  return o;
}

std::string trace_stats_json(const TraceStats& s, const std::string& name) {
  nlohmann::ordered_json j;
  j["trace"] = name;
  j["jobs"] = s.jobs;
  j["skipped_rows"] = s.skipped_rows;
  auto& why = j["skipped_rows_by_reason"] = nlohmann::ordered_json::object();
  for (const auto& [reason, n] : s.skipped_by_reason) why[reason] = n;
  if (!s.declarations.empty()) j["header"] = s.declarations;
  j["first_submit_s"] = s.first_submit_s;
  j["last_submit_s"] = s.last_submit_s;
  const double span = s.last_submit_s - s.first_submit_s;
  j["arrival_rate_per_hour"] = span > 0 ? static_cast<double>(s.jobs) / (span / 3600) : 0.0;
  j["multi_task_jobs"] = s.multi_task_jobs;
  j["gpu_hours"] = s.total_gpu_hours;
  auto& pct = j["duration_percentiles_s"] = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < s.duration_percentiles_s.size(); ++i)
    pct[fmt::format("p{:g}", TraceStats::kPercentiles[i])] = s.duration_percentiles_s[i];
  // Keys are GPU counts as text ("0.5", "8"): JSON keys are strings.
  auto& hist = j["gpus_per_job"] = nlohmann::ordered_json::object();
  for (const auto& [g, n] : s.gpu_histogram) hist[fmt::format("{:g}", g)] = n;
  j["gpu_hours_by_size_class"] = s.gpu_hours_by_class;
  j["arrivals_by_hour"] = s.arrivals_by_hour;
  if (!s.by_job_type.empty()) {
    auto& types = j["job_types"] = nlohmann::ordered_json::object();
    for (const auto& [type, t] : s.by_job_type) types[type] = {{"jobs", t.first}, {"gpu_hours", t.second}};
  }
  return j.dump(2) + "\n";
}

}  // namespace schedlab::workload
