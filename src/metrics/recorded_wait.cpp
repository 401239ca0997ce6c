// The recorded and simulated waits of the jobs that have both, with the summary's mean and
// percentile (metrics/summary.h: one percentile method everywhere).
#include "metrics/recorded_wait.h"

#include <algorithm>
#include <vector>

#include "metrics/summary.h"

namespace schedlab::metrics {

std::optional<RecordedWaitComparison> compare_recorded_waits(const Collector& c) {
  if (!c.has_recorded_waits()) return std::nullopt;
  RecordedWaitComparison out;
  std::vector<double> recorded, simulated;
  for (const auto& r : c.jobs()) {
    const std::uint32_t wait_s = c.recorded_wait_s(r.id);
    if (wait_s == workload::kNoRecordedWait) continue;
    ++out.recorded;
    if (r.dropped || r.start < 0) continue;
    recorded.push_back(static_cast<double>(wait_s));
    simulated.push_back(engine::to_seconds(r.start - r.submit));
  }
  out.compared = recorded.size();
  if (recorded.empty()) return out;
  auto figures = [](std::vector<double>& v, double& mean, double& p50, double& p90) {
    double sum = 0;
    for (double x : v) sum += x;  // in job order, as the summary's means
    mean = sum / static_cast<double>(v.size());
    std::sort(v.begin(), v.end());
    p50 = percentile(v, 50);
    p90 = percentile(v, 90);
  };
  figures(recorded, out.recorded_mean_s, out.recorded_p50_s, out.recorded_p90_s);
  figures(simulated, out.simulated_mean_s, out.simulated_p50_s, out.simulated_p90_s);
  return out;
}

}  // namespace schedlab::metrics
