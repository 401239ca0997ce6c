// Summary statistics over the job records.
#include "metrics/summary.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

namespace schedlab::metrics {

namespace {
// The rank of percentile p among n values: floor and fraction of h = (n - 1) p / 100.
std::pair<std::size_t, double> rank_of(std::size_t n, double p) {
  const double h = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(n - 1);
  const auto lo = std::min(static_cast<std::size_t>(std::floor(h)), n - 1);
  return {lo, h - static_cast<double>(lo)};
}
}  // namespace

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto [lo, frac] = rank_of(sorted.size(), p);
  if (frac == 0 || lo + 1 >= sorted.size()) return sorted[lo];
  return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

double jain_index(const std::vector<double>& values) {
  if (values.size() < 2) return kNoValue;
  double sum = 0, squares = 0;
  for (double x : values) {
    sum += x;
    squares += x * x;
  }
  return squares > 0 ? sum * sum / (static_cast<double>(values.size()) * squares) : 1.0;
}

double bounded_slowdown(double jct_s, double run_s) {
  return std::max(1.0, jct_s / std::max(run_s, kSlowdownBound_s));
}

namespace {
double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? kNoValue : s / static_cast<double>(v.size());
}

// percentile() at ascending `ps` of values in any order, which it reorders: the same
// interpolation between the same order statistics, found by selection (each rank in the part
// above the previous one) in linear time instead of a sort; kNoValue for none.
template <std::size_t N>
std::array<double, N> percentiles_of(std::vector<double>& v, const std::array<double, N>& ps) {
  std::array<double, N> out;
  out.fill(kNoValue);
  if (v.empty()) return out;
  std::size_t placed = 0;  // v[placed - 1] is in its sorted place, every later value >= it
  for (std::size_t k = 0; k < N; ++k) {
    const auto [lo, frac] = rank_of(v.size(), ps[k]);
    if (lo >= placed) {
      std::nth_element(v.begin() + static_cast<std::ptrdiff_t>(placed), v.begin() + static_cast<std::ptrdiff_t>(lo),
                       v.end());
      placed = lo + 1;
    }
    const double a = v[lo];
    if (frac == 0 || lo + 1 >= v.size()) {
      out[k] = a;
      continue;
    }
    // The next value up is the least of those after the nth element.
    const double b = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end());
    out[k] = a + frac * (b - a);
  }
  return out;
}

double percentile_of(std::vector<double>& v, double p) { return percentiles_of<1>(v, {p})[0]; }

// A finished or failed job's queueing delay: its time between submit and end holding nothing.
double queueing_delay_s(const JobRecord& r) { return engine::to_seconds(r.end - r.submit - r.held); }

// Per-pool figures: a second pass over the jobs, made only in runs with pools.
void summarize_pools(const Collector& c, Summary& s) {
  const auto& info = c.pools();
  const std::size_t n = info.size();
  s.pools.resize(n);
  std::vector<std::vector<double>> jct(n), wait(n), queued(n);
  for (const auto& r : c.jobs()) {
    for (auto p = c.job_pool(r.id); p >= 0; p = info[static_cast<std::size_t>(p)].parent) {
      const auto i = static_cast<std::size_t>(p);
      auto& ps = s.pools[i];
      ++ps.jobs;
      if (r.dropped) {
        ++ps.dropped;
        continue;
      }
      // Services never finish: they end when no longer wanted (as in the run's own figures).
      if (r.state != sched::JobState::finished || r.kind == workload::JobKind::service) continue;
      ++ps.finished;
      jct[i].push_back(engine::to_seconds(r.end - r.submit));
      wait[i].push_back(engine::to_seconds(r.start - r.submit));
      queued[i].push_back(queueing_delay_s(r));
    }
  }
  const double span_us = c.pool_span_seconds() * 1e6;
  for (std::size_t i = 0; i < n; ++i) {
    auto& ps = s.pools[i];
    ps.name = info[i].name;
    if (info[i].parent >= 0) {
      const auto& up = s.pools[static_cast<std::size_t>(info[i].parent)];  // parents come first
      ps.parent = up.name;
      ps.depth = up.depth + 1;
    }
    ps.jct_mean_s = mean(jct[i]);
    ps.jct_p95_s = percentile_of(jct[i], 95);
    ps.first_wait_mean_s = mean(wait[i]);
    ps.first_wait_p95_s = percentile_of(wait[i], 95);
    ps.queueing_delay_mean_s = mean(queued[i]);
    const auto& t = c.pool_totals(i);
    if (span_us > 0) {
      ps.gpus_allocated_mean = t.gpus_allocated_us / span_us;
      ps.gpus_entitled_mean = t.gpus_entitled_us / span_us;
    }
    if (t.due_us > 0) ps.fairness = t.served_us / t.due_us;
    if (info[i].leaf && ps.fairness) s.pool_fairness_min = std::min(s.pool_fairness_min.value_or(1.0), *ps.fairness);
  }
}
}  // namespace

Summary summarize(const Collector& c, std::uint64_t skipped_rows) {
  Summary s;
  s.skipped_rows = skipped_rows;
  s.total_gpus = c.topology().total_gpus();
  std::vector<double> jct, wait, queued, slowdown, bounded, rho;
  std::map<workload::Label, double> user_gpu_us;  // ordered: the same sums in the same order every run
  double lost_gpu_us = 0;
  for (const auto& r : c.jobs()) {
    ++s.jobs;
    if (r.dropped) {
      ++s.dropped;
      continue;
    }
    s.preemptions += r.preemptions;
    s.failures += r.failures;
    lost_gpu_us += r.lost_gpu_us;
    // Every user with a job that was not dropped counts, GPU time or not.
    user_gpu_us[r.user] += r.attained_gpu_us;
    if (r.state == sched::JobState::failed) ++s.failed;
    // A service instance ends when it is no longer wanted: it has no completion time.
    if (r.state != sched::JobState::finished || r.kind == workload::JobKind::service) continue;
    ++s.finished;
    const double jct_s = engine::to_seconds(r.end - r.submit), run_s = engine::to_seconds(r.held);
    jct.push_back(jct_s);
    wait.push_back(engine::to_seconds(r.start - r.submit));
    queued.push_back(queueing_delay_s(r));
    if (r.held > 0) slowdown.push_back(jct_s / run_s);
    bounded.push_back(bounded_slowdown(jct_s, run_s));
    if (r.gpus_per_task == 0) ++s.finished_without_gpu;
    if (r.duration > 0) rho.push_back(static_cast<double>(r.end - r.submit) / static_cast<double>(r.duration));
  }
  // Means in job order, before the selections below reorder the values.
  s.jct_mean_s = mean(jct);
  s.first_wait_mean_s = mean(wait);
  s.queueing_delay_mean_s = mean(queued);
  s.slowdown_mean = mean(slowdown);
  s.bounded_slowdown_mean = mean(bounded);
  // Percentiles by selection, not sorts (five sorts of a million values were 4% of a run).
  s.first_wait_p95_s = percentile_of(wait, 95);
  // The first waits of jobs that need GPUs: all of them, unless some finished jobs need none (a
  // second pass then, so that a GPU-only run gathers no more than before).
  if (s.finished_without_gpu == 0) {
    s.gpu_job_first_wait_mean_s = s.first_wait_mean_s;
    s.gpu_job_first_wait_p95_s = s.first_wait_p95_s;
  } else {
    std::vector<double> gpu_wait;
    for (const auto& r : c.jobs())
      if (!r.dropped && r.state == sched::JobState::finished && r.kind != workload::JobKind::service &&
          r.gpus_per_task > 0)
        gpu_wait.push_back(engine::to_seconds(r.start - r.submit));
    s.gpu_job_first_wait_mean_s = mean(gpu_wait);
    s.gpu_job_first_wait_p95_s = percentile_of(gpu_wait, 95);
  }
  s.ftf_rho_max = rho.empty() ? kNoValue : *std::max_element(rho.begin(), rho.end());
  s.ftf_rho_p95 = percentile_of(rho, 95);
  std::vector<double> per_user;
  for (const auto& [user, us] : user_gpu_us) per_user.push_back(us);
  s.jain_fairness = jain_index(per_user);
  s.lost_gpu_hours = lost_gpu_us / 1e6 / 3600.0;
  const auto jct_ps = percentiles_of<3>(jct, {50, 95, 99});
  s.jct_p50_s = jct_ps[0];
  s.jct_p95_s = jct_ps[1];
  s.jct_p99_s = jct_ps[2];
  const auto queued_ps = percentiles_of<3>(queued, {50, 95, 99});
  s.queueing_delay_p50_s = queued_ps[0];
  s.queueing_delay_p95_s = queued_ps[1];
  s.queueing_delay_p99_s = queued_ps[2];
  s.bounded_slowdown_p95 = percentile_of(bounded, 95);
  // From the first submit to the last end; 0 when nothing ran (every job dropped: the
  // fuzzer found -6 s here).
  if (c.first_submit() >= 0 && c.last_end() > c.first_submit())
    s.makespan_s = engine::to_seconds(c.last_end() - c.first_submit());
  s.gpu_hours = c.integral_gpu_seconds() / 3600.0;
  const double gpus = static_cast<double>(s.total_gpus);
  const double cpus = static_cast<double>(c.topology().total_cpu_milli()) / 1000.0;
  if (gpus * s.makespan_s > 0) s.gpu_utilization_makespan = c.integral_gpu_seconds() / (gpus * s.makespan_s);
  if (cpus * s.makespan_s > 0) s.cpu_utilization_makespan = c.cpu_seconds() / (cpus * s.makespan_s);
  if (const auto w = c.window()) {
    s.window_start_s = engine::to_seconds(w->start);
    s.window_end_s = engine::to_seconds(w->end);
    const double span_us = static_cast<double>(w->end - w->start);
    if (gpus > 0) {
      s.gpu_utilization = w->within.gpu_milli_us / 1000.0 / (gpus * span_us);
      s.fragmentation = w->within.fragmented_us / (gpus * span_us);
    }
    if (cpus > 0) s.cpu_utilization = w->within.cpu_milli_us / 1000.0 / (cpus * span_us);
  }
  // Allocated GPU time is what runs held (the timeline's integral); lost time is part of it.
  const double allocated_us = c.integral_gpu_seconds() * 1e6;
  if (allocated_us > 0) s.goodput = std::max(0.0, allocated_us - lost_gpu_us) / allocated_us;
  if (c.has_pools()) summarize_pools(c, s);
  s.recorded_wait = compare_recorded_waits(c);
  return s;
}

}  // namespace schedlab::metrics
