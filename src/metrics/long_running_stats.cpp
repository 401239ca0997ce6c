// Availability by integration between changes; cron figures by counting.
#include "metrics/long_running_stats.h"

#include <algorithm>

namespace schedlab::metrics {

void LongRunningStats::add_service(workload::Label group, const std::string& name) {
  service_of_[group] = services_.size();
  services_.push_back({});
  services_.back().fig.name = name;
}

void LongRunningStats::add_cron(workload::Label group, const std::string& name) {
  cron_of_[group] = cron_.size();
  cron_.push_back({});
  cron_.back().fig.name = name;
}

void LongRunningStats::advance(Service& s, engine::Time now) {
  if (now > s.since && s.wanted > 0) {
    const auto span = static_cast<double>(now - s.since);
    s.wanted_us += span;
    if (s.up >= s.wanted) s.all_up_us += span;
  }
  s.since = std::max(s.since, now);
}

void LongRunningStats::wanted(workload::Label group, engine::Time now, int delta) {
  auto it = service_of_.find(group);
  if (it == service_of_.end()) return;
  auto& s = services_[it->second];
  advance(s, now);
  s.wanted += delta;
  s.fig.instances_max = std::max<std::uint64_t>(s.fig.instances_max, static_cast<std::uint64_t>(std::max<std::int64_t>(s.wanted, 0)));
}

void LongRunningStats::up(workload::Label group, engine::Time now, int delta) {
  auto it = service_of_.find(group);
  if (it == service_of_.end()) return;
  auto& s = services_[it->second];
  advance(s, now);
  s.up += delta;
}

void LongRunningStats::service_restarted(workload::Label group) {
  if (auto it = service_of_.find(group); it != service_of_.end()) ++services_[it->second].fig.restarts;
}

void LongRunningStats::service_failed(workload::Label group) {
  if (auto it = service_of_.find(group); it != service_of_.end()) ++services_[it->second].fig.failures;
}

void LongRunningStats::occurrence(workload::Label group, bool overlapping) {
  auto it = cron_of_.find(group);
  if (it == cron_of_.end()) return;
  auto& c = cron_[it->second].fig;
  ++c.occurrences;
  c.overlapping += overlapping;
}

void LongRunningStats::skipped(workload::Label group) {
  if (auto it = cron_of_.find(group); it != cron_of_.end()) ++cron_[it->second].fig.skipped;
}

void LongRunningStats::dropped(workload::Label group) {
  if (auto it = cron_of_.find(group); it != cron_of_.end()) ++cron_[it->second].fig.dropped;
}

void LongRunningStats::started(workload::Label group, engine::Time delay) {
  auto it = cron_of_.find(group);
  if (it == cron_of_.end()) return;
  auto& c = cron_[it->second];
  const double s = engine::to_seconds(delay);
  ++c.fig.started;
  c.delay_sum_s += s;
  c.fig.delay_max_s = std::max(c.fig.delay_max_s, s);
}

void LongRunningStats::finish(engine::Time now) {
  for (auto& s : services_) advance(s, now);
}

std::vector<ServiceFigures> LongRunningStats::services() const {
  std::vector<ServiceFigures> out;
  for (const auto& s : services_) {
    out.push_back(s.fig);
    out.back().availability = s.wanted_us > 0 ? s.all_up_us / s.wanted_us : 1.0;
  }
  return out;
}

std::vector<CronFigures> LongRunningStats::cron() const {
  std::vector<CronFigures> out;
  for (const auto& c : cron_) {
    out.push_back(c.fig);
    out.back().delay_mean_s = c.fig.started ? c.delay_sum_s / static_cast<double>(c.fig.started) : 0.0;
  }
  return out;
}

}  // namespace schedlab::metrics
