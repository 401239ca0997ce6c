// Per-job records and the piecewise-constant timeline.
#include "metrics/collector.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <limits>

#include "pools/pool_book.h"
#include "util/checked.h"

namespace schedlab::metrics {

Collector::Collector(const cluster::Topology& topo, engine::Time timeline_interval, util::Notices* notices,
                     MeasureWindow window)
    : topo_(&topo),
      interval_(std::max<engine::Time>(timeline_interval, 1)),  // the clock's tick at least: never divide by 0
      requested_interval_(interval_),
      notices_(notices),
      window_(window) {
  if (window.start) window_start_ = util::add_time(*window.start, window.warmup);
  window_end_ = window.end;
  // Before the first event the cluster is empty and idle.
  last_.free_gpus = topo.total_gpus();
  have_last_ = true;
}

std::uint32_t Collector::add_text(std::string_view s) {
  text_chars_.append(s);
  return end_text();
}

std::uint32_t Collector::end_text() {
  text_at_.push_back(text_chars_.size());
  return static_cast<std::uint32_t>(text_at_.size() - 2);
}

JobRecord& Collector::new_record(const workload::JobSpec& job) {
  auto& r = record(job);
  r.id = job.id;
  r.trace_number = job.trace_number;
  r.trace_id = job.trace_id;
  r.user = job.user;
  r.duration = job.duration;
  r.tasks = job.tasks;
  r.gpus_per_task = job.gpus_per_task;
  r.gpu_milli = job.gpu_milli;
  r.cpu_milli = job.cpu_milli;
  r.mem_mib = job.mem_mib;
  r.kind = job.kind;
  if (job.has_recorded_wait()) {
    if (recorded_wait_.size() <= job.id)
      recorded_wait_.resize(static_cast<std::size_t>(job.id) + 1, workload::kNoRecordedWait);
    recorded_wait_[job.id] = job.recorded_wait_s;
  }
  if (job.pool != workload::kNoLabel) {
    if (job_pool_.size() <= job.id) job_pool_.resize(static_cast<std::size_t>(job.id) + 1, 0);
    job_pool_[job.id] = job.pool;
  }
  return r;
}

Integrals Collector::integrals_at(engine::Time t) const {
  Integrals i{integral_milli_us_, cpu_milli_us_, frag_us_};
  if (finished_ || !have_last_ || t <= last_.now) return i;
  const double dt = static_cast<double>(t - last_.now);
  i.gpu_milli_us += static_cast<double>(last_.used_milli) * dt;
  i.cpu_milli_us += static_cast<double>(last_.used_cpu_milli) * dt;
  i.fragmented_us += static_cast<double>(last_.fragmented_gpus) * dt;
  return i;
}

void Collector::take_edges(engine::Time until) {
  if (window_start_ && !at_start_ && *window_start_ <= until) at_start_ = integrals_at(*window_start_);
  if (window_end_ && !at_end_ && *window_end_ <= until) at_end_ = integrals_at(*window_end_);
}

void Collector::submitted(engine::Time now) {
  if (first_submit_ < 0) {
    first_submit_ = now;
    if (!window_.start) window_start_ = util::add_time(now, window_.warmup);
  }
  last_submit_ = now;
  // Until the run ends, the default end is the latest submission so far.
  if (!window_.end) at_last_submit_ = integrals_at(now);
  take_edges(now);
}

std::optional<WindowFigures> Collector::window() const {
  if (!window_start_ || (!window_end_ && last_submit_ < 0)) return std::nullopt;
  const engine::Time start = *window_start_, end = window_end_ ? *window_end_ : last_submit_;
  if (end <= start) return std::nullopt;
  const Integrals a = at_start_.value_or(integrals_at(start));
  const Integrals b = window_end_ ? at_end_.value_or(integrals_at(end)) : at_last_submit_;
  return WindowFigures{start, end,
                       {b.gpu_milli_us - a.gpu_milli_us, b.cpu_milli_us - a.cpu_milli_us,
                        b.fragmented_us - a.fragmented_us}};
}

void Collector::on_submit(const workload::JobSpec& job, engine::Time now) {
  new_record(job).submit = now;
  submitted(now);
}

void Collector::on_drop(const workload::JobSpec& job, engine::Time now, const std::string& reason) {
  auto& r = new_record(job);
  r.submit = now;
  r.dropped = true;
  r.state = sched::JobState::dropped;
  r.drop_reason = add_text(reason);
  submitted(now);
}

void Collector::settle_placement(JobRecord& r) {
  if (!r.running_slot) return;
  const std::uint32_t slot = r.placement;
  const auto& p = active_[slot];
  r.hosts = p.distinct_hosts();
  r.racks = p.distinct_racks(*topo_);
  r.models = p.models(*topo_);
  p.append_description(text_chars_);
  r.placement = end_text();
  r.running_slot = false;
  active_job_[slot] = kFreeSlot;
  free_slots_.push_back(slot);
}

void Collector::on_life(const LifeEvent& e) {
  auto& r = record(*e.job);
  const auto& l = *e.life;
  r.preemptions = l.preemptions;
  r.failures = l.failures;
  r.restarts = l.restarts;
  r.attained_gpu_us = l.attained_gpu_us;
  r.lost_gpu_us = l.lost_gpu_us;
  r.held = l.attained;
  switch (e.step) {
    case LifeStep::stop:
      r.state = e.hold > 0 ? sched::JobState::stopping : sched::JobState::pending;
      r.new_attempt = true;
      break;
    case LifeStep::fail:
      // Terminated: it ends here, where its last attempt ran (its JCT stays empty).
      r.state = sched::JobState::failed;
      r.end = e.now;
      settle_placement(r);
      break;
    case LifeStep::finish:
      r.state = sched::JobState::finished;
      break;
    case LifeStep::start:
    case LifeStep::restart:
      break;
  }
}

void Collector::on_start(const workload::JobSpec& job, const cluster::Placement& tasks, engine::Time now, bool first) {
  auto& r = record(job);
  if (first) r.start = now;
  r.state = sched::JobState::running;
  if (!r.running_slot) {
    std::uint32_t slot;
    if (free_slots_.empty()) {
      slot = static_cast<std::uint32_t>(active_.size());
      active_.emplace_back();
      active_job_.push_back(kFreeSlot);
    } else {
      slot = free_slots_.back();
      free_slots_.pop_back();
    }
    active_[slot].tasks.clear();
    active_job_[slot] = job.id;
    r.placement = slot;
    r.running_slot = true;
  } else if (r.new_attempt) {
    // After a stop the job starts over elsewhere: jobs.csv describes its final placement.
    active_[r.placement].tasks.clear();
  }
  r.new_attempt = false;
  auto& p = active_[r.placement];
  p.tasks.insert(p.tasks.end(), tasks.tasks.begin(), tasks.tasks.end());
}

void Collector::on_run_end(const workload::JobSpec& job, const cluster::Placement& tasks, engine::Time start,
                           engine::Time now, bool job_done) {
  run_milli_us_ += static_cast<double>(tasks.used_milli()) * static_cast<double>(now - start);
  last_end_ = std::max(last_end_, now);
  auto& r = record(job);
  if (!job_done) {
    // A stopped job's GPUs are free (after its save, if graceful): it waits again.
    if (r.state == sched::JobState::stopping) r.state = sched::JobState::pending;
    return;
  }
  r.end = now;
  r.state = sched::JobState::finished;
  settle_placement(r);
}

engine::Time Collector::bucket_of(engine::Time t) const {
  // Floor division from the origin: rows stay aligned for times before it too.
  engine::Time off = util::sub_time(t, origin_);
  engine::Time k = off / interval_;
  if (off % interval_ < 0) --k;
  return util::add_time(origin_, util::mul_time(k, interval_));
}

void Collector::coarsen() {
  // Rows are whole intervals from the origin, so each pair becomes one row of twice the length;
  // the values are time averages over the row, so the pair's mean. A lone last row is the first
  // half of its new row (the rest is still to come, with the new interval's weights).
  std::vector<TimelineRow> merged;
  merged.reserve(timeline_.size() / 2 + 1);
  for (std::size_t i = 0; i < timeline_.size(); i += 2) {
    TimelineRow r = timeline_[i];
    const TimelineRow* b = i + 1 < timeline_.size() ? &timeline_[i + 1] : nullptr;
    r.used_gpus = (r.used_gpus + (b ? b->used_gpus : 0)) / 2;
    r.running_jobs = (r.running_jobs + (b ? b->running_jobs : 0)) / 2;
    r.pending_jobs = (r.pending_jobs + (b ? b->pending_jobs : 0)) / 2;
    r.free_gpus = (r.free_gpus + (b ? b->free_gpus : 0)) / 2;
    r.fragmented_gpus = (r.fragmented_gpus + (b ? b->fragmented_gpus : 0)) / 2;
    r.down_gpus = (r.down_gpus + (b ? b->down_gpus : 0)) / 2;
    r.used_cpus = (r.used_cpus + (b ? b->used_cpus : 0)) / 2;
    r.end = util::add_time(r.start, util::mul_time(interval_, 2));
    merged.push_back(r);
  }
  if (!pools_.empty()) {
    const std::size_t n = pools_.size();
    std::vector<PoolCell> cells;
    cells.reserve(merged.size() * n);
    for (std::size_t i = 0; i < timeline_.size(); i += 2)
      for (std::size_t p = 0; p < n; ++p) {
        PoolCell a = pool_timeline_[i * n + p];
        const PoolCell* b = i + 1 < timeline_.size() ? &pool_timeline_[(i + 1) * n + p] : nullptr;
        auto half = [&](double PoolCell::*f) { a.*f = (a.*f + (b ? b->*f : 0)) / 2; };
        for (auto f : kPoolCellFields) half(f);
        cells.push_back(a);
      }
    pool_timeline_ = std::move(cells);
  }
  timeline_ = std::move(merged);
  interval_ = util::mul_time(interval_, 2);
}

void Collector::fit_rows(engine::Time until) {
  // Rows from the origin to the row holding `until`, counted without overflow: the span is at
  // most 2^64 us and the interval at least 1 us.
  auto rows_needed = [&] {
    const auto span = static_cast<std::uint64_t>(until) - static_cast<std::uint64_t>(origin_);
    return span / static_cast<std::uint64_t>(interval_) + 1;
  };
  const std::size_t max_rows =
      pools_.empty() ? kMaxTimelineRows
                     : std::min(kMaxTimelineRows, std::max<std::size_t>(1, kMaxPoolTimelineRows / pools_.size()));
  while (rows_needed() > max_rows) coarsen();
}

void Collector::push_row(engine::Time start) {
  timeline_.push_back(TimelineRow{start, util::add_time(start, interval_)});
  if (!pools_.empty()) pool_timeline_.resize(pool_timeline_.size() + pools_.size());
}

void Collector::accumulate(engine::Time until) {
  if (!have_last_) return;
  take_edges(until);
  engine::Time t = last_.now;
  if (t >= until) return;
  if (!have_origin_) {
    origin_ = 0;
    origin_ = bucket_of(t);
    have_origin_ = true;
  }
  fit_rows(until);
  while (t < until) {
    engine::Time bucket_start = bucket_of(t);
    engine::Time bucket_end = util::add_time(bucket_start, interval_);
    engine::Time seg_end = std::min(until, bucket_end);
    double dt = static_cast<double>(seg_end - t);
    if (timeline_.empty() || timeline_.back().start != bucket_start) {
      // Intervals with no instant in them still get a row (the state held throughout).
      engine::Time next = timeline_.empty() ? bucket_start : timeline_.back().end;
      while (next < bucket_start) {
        push_row(next);
        next = util::add_time(next, interval_);
      }
      push_row(bucket_start);
    }
    auto& row = timeline_.back();
    double w = dt / static_cast<double>(interval_);
    row.used_gpus += w * static_cast<double>(last_.used_milli) / 1000.0;
    row.running_jobs += w * static_cast<double>(last_.running_jobs);
    row.pending_jobs += w * static_cast<double>(last_.pending_jobs);
    row.free_gpus += w * static_cast<double>(last_.free_gpus);
    row.fragmented_gpus += w * static_cast<double>(last_.fragmented_gpus);
    row.down_gpus += w * static_cast<double>(last_.down_gpus);
    row.used_cpus += w * static_cast<double>(last_.used_cpu_milli) / 1000.0;
    integral_milli_us_ += static_cast<double>(last_.used_milli) * dt;
    cpu_milli_us_ += static_cast<double>(last_.used_cpu_milli) * dt;
    frag_us_ += static_cast<double>(last_.fragmented_gpus) * dt;
    t = seg_end;
  }
}

void Collector::flush_pool(std::size_t p, engine::Time until) {
  engine::Time t = pool_since_[p];
  if (t >= until) return;
  pool_since_[p] = until;
  const PoolCell& now = pool_now_[p];
  const double dt = static_cast<double>(until - t);
  auto& tot = pool_totals_[p];
  tot.gpus_allocated_us += now.gpus_allocated * dt;
  tot.gpus_entitled_us += now.gpus_entitled * dt;
  if (pool_due_[p] > 0) {
    tot.served_us += std::min(1.0, now.gpus_allocated / pool_due_[p]) * dt;
    tot.due_us += dt;
  }
  // The rows from the one holding t (accumulate() made them, up to `until`).
  const std::size_t n = pools_.size();
  auto row = static_cast<std::size_t>(util::sub_time(bucket_of(t), timeline_.front().start) / interval_);
  for (; t < until; ++row) {
    const engine::Time seg_end = std::min(until, timeline_[row].end);
    const double w = static_cast<double>(seg_end - t) / static_cast<double>(interval_);
    PoolCell& cell = pool_timeline_[row * n + p];
    for (auto f : kPoolCellFields) cell.*f += w * now.*f;
    t = seg_end;
  }
}

void Collector::take_pools(const pools::PoolBook& book, engine::Time now) {
  const auto& tree = book.tree();
  const std::size_t n = tree.size();
  if (pools_.empty()) {
    if (n == 0) return;
    book_ = &book;
    for (std::size_t p = 0; p < n; ++p) pools_.push_back({tree[p].name, tree[p].parent, tree.is_leaf(p)});
    pool_now_.resize(n);
    pool_due_.resize(n);
    pool_since_.assign(n, now);
    pool_seen_.assign(n, ~std::uint64_t{0});
    pool_totals_.resize(n);
    pool_first_ = now;
    // Rows before the pools were known (before the first instant) hold zeros.
    pool_timeline_.assign(timeline_.size() * n, PoolCell{});
  }
  for (std::size_t p = 0; p < n; ++p) {
    const auto i = static_cast<std::int32_t>(p);
    // Most instants change a pool or two: the others go on accumulating from when they changed.
    if (book.changes(i) == pool_seen_[p]) continue;
    pool_seen_[p] = book.changes(i);
    flush_pool(p, now);
    const auto &held = book.allocation(i), &entitled = book.entitlement(i), &waits = book.pending(i);
    pool_now_[p] = {held[0], entitled[0], held[1], entitled[1], held[2], entitled[2], waits[0]};
    pool_due_[p] = std::min(entitled[0], std::min(held[0] + waits[0], tree[p].limit[0]));
  }
}

void Collector::on_instant(const InstantState& state) {
  accumulate(state.now);
  last_ = state;
  have_last_ = true;
  if (state.pools) take_pools(*state.pools, state.now);
}

void Collector::on_finish(engine::Time now) {
  accumulate(now);
  // Nothing runs after the end: edges still ahead see the final integrals.
  finished_ = true;
  take_edges(std::numeric_limits<engine::Time>::max());
  for (std::size_t p = 0; p < pools_.size(); ++p) flush_pool(p, now);
  if (!pools_.empty()) pool_span_us_ = static_cast<double>(std::max<engine::Time>(now - pool_first_, 0));
  // A run cut short: unended jobs are described where they run now (or last ran).
  std::vector<workload::JobId> unended;
  for (auto id : active_job_)
    if (id != kFreeSlot) unended.push_back(id);
  std::sort(unended.begin(), unended.end());
  for (auto id : unended) settle_placement(jobs_[id]);
  if (book_) {
    // Each job's pool, from the book (which also remembers the jobs it dropped at submit).
    job_pool_.assign(jobs_.size(), 0);
    for (std::size_t id = 0; id < jobs_.size(); ++id)
      job_pool_[id] = static_cast<std::uint32_t>(book_->assigned(static_cast<workload::JobId>(id)) + 1);
  }
  // The last row ends at the end of the run, not at the end of its interval.
  if (!timeline_.empty() && timeline_.back().end > now && now > timeline_.back().start) {
    auto& row = timeline_.back();
    double scale = static_cast<double>(interval_) / static_cast<double>(now - row.start);
    row.used_gpus *= scale;
    row.running_jobs *= scale;
    row.pending_jobs *= scale;
    row.free_gpus *= scale;
    row.fragmented_gpus *= scale;
    row.down_gpus *= scale;
    row.used_cpus *= scale;
    row.end = now;
    if (!pools_.empty()) {
      PoolCell* cells = &pool_timeline_[(timeline_.size() - 1) * pools_.size()];
      for (std::size_t p = 0; p < pools_.size(); ++p)
        for (auto f : kPoolCellFields) cells[p].*f *= scale;
    }
  }
  if (notices_ && interval_ != requested_interval_)
    notices_->say(
        fmt::format("timeline interval coarsened from {:g} s to {:g} s: the run spans {:g} s and the timeline "
                    "holds at most {} rows",
                    static_cast<double>(requested_interval_) / 1e6, static_cast<double>(interval_) / 1e6,
                    static_cast<double>(util::sub_time(now, origin_)) / 1e6, kMaxTimelineRows));
}

}  // namespace schedlab::metrics
