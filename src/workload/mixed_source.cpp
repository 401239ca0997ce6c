// Merging a trace with services and cron entries, in submit order.
#include "workload/mixed_source.h"

#include <fmt/format.h>

#include <algorithm>

namespace schedlab::workload {

MixedSource::MixedSource(std::unique_ptr<JobSource> base, const LongRunningWork& work)
    : base_(std::move(base)), work_(work) {
  for (const auto& s : work_.services)
    for (const auto& span : instance_spans(s)) services_.push_back(service_job(s, span));
  std::stable_sort(services_.begin(), services_.end(),
                   [](const JobSpec& a, const JobSpec& b) { return a.submit < b.submit; });
  cron_.resize(work_.cron.size());
  for (std::size_t e = 0; e < cron_.size(); ++e) {
    // Occurrences before the epoch never happen in the run: skip them, in one step when the
    // period is a fixed length.
    const auto& c = work_.cron[e];
    const auto& p = c.schedule.period;
    const std::int64_t step = p.days * 86'400'000'000LL + p.micros;
    if (p.years == 0 && p.months == 0 && step > 0 && c.schedule.start_us < work_.epoch_us)
      cron_[e].k = static_cast<std::uint64_t>((work_.epoch_us - c.schedule.start_us) / step);
    settle(e);
  }
}

void MixedSource::settle(std::size_t entry) {
  auto& cur = cron_[entry];
  for (cur.at = occurrence_time(work_.cron[entry], cur.k, work_.epoch_us); cur.at && *cur.at < 0;)
    cur.at = occurrence_time(work_.cron[entry], ++cur.k, work_.epoch_us);
  if (cur.at && *cur.at > work_.until) cur.at.reset();
}

void MixedSource::advance(std::size_t entry) {
  ++cron_[entry].k;
  settle(entry);
}

void MixedSource::fill_shape(JobSpec& job, const EntryShape& shape, const std::string& group) {
  auto& s = strings();
  job.tasks = shape.tasks;
  job.gpus_per_task = shape.gpus_per_task;
  job.cpu_milli = shape.cpu_milli;
  job.mem_mib = shape.mem_mib;
  job.cpu_given = shape.cpu_given;
  job.mem_given = shape.mem_given;
  job.gpu_request = s.intern(shape.gpu_model);
  job.user = s.intern(shape.user);
  job.pool = s.intern(shape.pool);
  job.priority = shape.priority;
  job.group = s.intern(group);
  job.gang = true;
}

JobSpec MixedSource::service_job(const ServiceSpec& s, const InstanceSpan& span) {
  JobSpec job;
  fill_shape(job, s.shape, s.name);
  job.kind = JobKind::service;
  job.submit = span.from;
  job.duration = span.to == engine::kTimeMax ? engine::kTimeMax : span.to - span.from;
  job.trace_id = strings().intern(fmt::format("{}.{}", s.name, span.index));
  return job;
}

JobSpec MixedSource::cron_job(std::size_t entry, engine::Time at) {
  const auto& c = work_.cron[entry];
  JobSpec job;
  fill_shape(job, c.shape, c.name);
  job.kind = JobKind::cron;
  job.submit = at;
  job.duration = c.duration;
  job.trace_id = strings().intern(fmt::format("{}#{}", c.name, cron_[entry].k));
  return job;
}

bool MixedSource::next(JobSpec& out) {
  if (base_ && !base_next_ && !base_done_) {
    JobSpec j;
    if (base_->next(j)) {
      base_next_ = j;
      base_last_ = std::max(base_last_, j.submit);
    } else {
      base_done_ = true;
    }
  }
  // The earliest cron occurrence still to come (list order at a tie). An unbounded schedule
  // ends with the trace: past the trace's last submit once it is read whole.
  std::size_t entry = cron_.size();
  for (std::size_t e = 0; e < cron_.size(); ++e) {
    auto& cur = cron_[e];
    if (cur.at && base_ && base_done_ && !work_.cron[e].schedule.count() && *cur.at > base_last_) cur.at.reset();
    if (cur.at && (entry == cron_.size() || *cur.at < *cron_[entry].at)) entry = e;
  }
  const engine::Time inf = engine::kTimeMax;
  const engine::Time t_base = base_next_ ? base_next_->submit : inf;
  const engine::Time t_service = next_service_ < services_.size() ? services_[next_service_].submit : inf;
  const engine::Time t_cron = entry < cron_.size() ? *cron_[entry].at : inf;
  if (base_next_ && t_base <= t_service && t_base <= t_cron) {
    out = *base_next_;
    base_next_.reset();
    return true;
  }
  if (next_service_ < services_.size() && t_service <= t_cron) {
    out = services_[next_service_++];
    return true;
  }
  if (entry < cron_.size()) {
    // Before the trace's next job, or after the trace's last: the trace reaches this far.
    out = cron_job(entry, t_cron);
    advance(entry);
    return true;
  }
  return false;
}

}  // namespace schedlab::workload
