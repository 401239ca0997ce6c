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

std::uint64_t service_job_count(const ServiceSpec& s) {
  std::uint64_t jobs = s.instances;
  std::uint32_t now = s.instances;
  for (const auto& step : s.scale) {
    if (step.instances > now) jobs += step.instances - now;  // a scale-up starts new instances
    now = step.instances;
  }
  return jobs;
}

std::optional<std::uint64_t> cron_occurrence_bound(const CronSpec& c, std::int64_t epoch_us, engine::Time until) {
  std::optional<std::uint64_t> n = c.schedule.count();
  const auto& p = c.schedule.period;
  const std::int64_t step = p.days * 86'400'000'000LL + p.micros;
  // Calendar periods (a month or more) cannot come near the bound within the clock's 100 years.
  if (until == engine::kTimeMax || p.years != 0 || p.months != 0 || step <= 0) return n;
  // Occurrences from the schedule's start (or the epoch, if later) to the end of the run.
  const std::int64_t from = std::max(c.schedule.start_us, epoch_us);
  const std::int64_t to = epoch_us + until;
  const std::uint64_t within = to < from ? 0 : static_cast<std::uint64_t>((to - from) / step) + 1;
  return n ? std::min(*n, within) : within;
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
