// Instance spans of a service; a cron occurrence's place on the trace's clock.
#include "workload/long_running.h"

#include <algorithm>
#include <stdexcept>

namespace schedlab::workload {

std::vector<InstanceSpan> instance_spans(const ServiceSpec& s) {
  std::vector<InstanceSpan> done;
  std::vector<InstanceSpan> open;  // by index
  auto resize = [&](std::uint32_t n, engine::Time at) {
    while (open.size() > n) {
      open.back().to = at;
      if (open.back().to > open.back().from) done.push_back(open.back());
      open.pop_back();
    }
    while (open.size() < n) open.push_back({static_cast<std::uint32_t>(open.size()), at, engine::kTimeMax});
  };
  resize(s.instances, s.start);
  for (const auto& step : s.scale) resize(step.instances, step.at);
  if (s.stop != engine::kTimeMax) resize(0, s.stop);
  done.insert(done.end(), open.begin(), open.end());
  std::sort(done.begin(), done.end(), [](const InstanceSpan& a, const InstanceSpan& b) {
    return a.from != b.from ? a.from < b.from : a.index < b.index;
  });
  return done;
}

std::optional<engine::Time> occurrence_time(const CronSpec& c, std::uint64_t k, std::int64_t epoch_us) {
  if (auto n = c.schedule.count(); n && k >= *n) return std::nullopt;
  std::int64_t at = 0;
  try {
    at = c.schedule.occurrence(k);
  } catch (const std::overflow_error&) {
    return std::nullopt;  // beyond the calendar: no occurrence is left
  }
  if (at < epoch_us) return engine::Time{-1};
  if (at - epoch_us > engine::kTimeMax / 2) return std::nullopt;  // beyond any run
  return engine::Time{at - epoch_us};
}

}  // namespace schedlab::workload
