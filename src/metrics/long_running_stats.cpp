// Availability by integration between changes; cron figures by counting.
#include "metrics/long_running_stats.h"

#include <algorithm>

namespace schedlab::metrics {

std::size_t LongRunningStats::add_service(const std::string& name) {
  services_.push_back({});
  services_.back().fig.name = name;
  return services_.size() - 1;
}

std::size_t LongRunningStats::add_cron(const std::string& name) {
  cron_.push_back({});
  cron_.back().fig.name = name;
  return cron_.size() - 1;
}

void LongRunningStats::advance(Service& s, engine::Time now) {
  if (now > s.since && s.wanted > 0) {
    const auto span = static_cast<double>(now - s.since);
    s.wanted_us += span;
    if (s.up >= s.wanted) s.all_up_us += span;
  }
  s.since = std::max(s.since, now);
}

void LongRunningStats::wanted(std::size_t service, engine::Time now, int delta) {
  auto& s = services_[service];
  advance(s, now);
  s.wanted += delta;
  s.fig.instances_max = std::max<std::uint64_t>(s.fig.instances_max, static_cast<std::uint64_t>(std::max<std::int64_t>(s.wanted, 0)));
}

void LongRunningStats::up(std::size_t service, engine::Time now, int delta) {
  auto& s = services_[service];
  advance(s, now);
  s.up += delta;
}

void LongRunningStats::service_restarted(std::size_t service) { ++services_[service].fig.restarts; }

void LongRunningStats::service_failed(std::size_t service) { ++services_[service].fig.failures; }

void LongRunningStats::occurrence(std::size_t cron, bool overlapping) {
  auto& c = cron_[cron].fig;
  ++c.occurrences;
  c.overlapping += overlapping;
}

void LongRunningStats::skipped(std::size_t cron) { ++cron_[cron].fig.skipped; }

void LongRunningStats::dropped(std::size_t cron) { ++cron_[cron].fig.dropped; }

void LongRunningStats::started(std::size_t cron, engine::Time delay) {
  auto& c = cron_[cron];
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
