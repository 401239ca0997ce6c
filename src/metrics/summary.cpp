// Summary statistics over the job records.
#include "metrics/summary.h"

#include <algorithm>
#include <cmath>

namespace schedlab::metrics {

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

namespace {
double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}
}  // namespace

Summary summarize(const Collector& c, std::uint64_t skipped_rows) {
  Summary s;
  s.skipped_rows = skipped_rows;
  s.total_gpus = c.topology().total_gpus();
  std::vector<double> jct, wait;
  for (const auto& r : c.jobs()) {
    ++s.jobs;
    if (r.dropped) {
      ++s.dropped;
      continue;
    }
    if (r.end < 0) continue;
    ++s.finished;
    jct.push_back(engine::to_seconds(r.end - r.submit));
    wait.push_back(engine::to_seconds(r.start - r.submit));
  }
  std::sort(jct.begin(), jct.end());
  std::sort(wait.begin(), wait.end());
  s.jct_mean_s = mean(jct);
  s.jct_p50_s = percentile(jct, 50);
  s.jct_p95_s = percentile(jct, 95);
  s.jct_p99_s = percentile(jct, 99);
  s.wait_mean_s = mean(wait);
  s.wait_p95_s = percentile(wait, 95);
  if (c.first_submit() >= 0) s.makespan_s = engine::to_seconds(c.last_end() - c.first_submit());
  s.gpu_hours = c.integral_gpu_seconds() / 3600.0;
  double capacity = static_cast<double>(s.total_gpus) * s.makespan_s;
  if (capacity > 0) {
    s.gpu_utilization = c.integral_gpu_seconds() / capacity;
    s.fragmentation = c.fragmented_gpu_seconds() / capacity;
  }
  return s;
}

std::vector<std::pair<std::string, double>> Summary::figures() const {
  return {{"jobs", static_cast<double>(jobs)},
          {"finished", static_cast<double>(finished)},
          {"dropped", static_cast<double>(dropped)},
          {"jct_mean_s", jct_mean_s},
          {"jct_p50_s", jct_p50_s},
          {"jct_p95_s", jct_p95_s},
          {"jct_p99_s", jct_p99_s},
          {"wait_mean_s", wait_mean_s},
          {"wait_p95_s", wait_p95_s},
          {"makespan_s", makespan_s},
          {"gpu_hours", gpu_hours},
          {"gpu_utilization", gpu_utilization},
          {"fragmentation", fragmentation}};
}

}  // namespace schedlab::metrics
