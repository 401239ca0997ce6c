// Summary statistics over the job records.
#include "metrics/summary.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace schedlab::metrics {

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

double jain_index(const std::vector<double>& values) {
  double sum = 0, squares = 0;
  for (double x : values) {
    sum += x;
    squares += x * x;
  }
  return squares > 0 ? sum * sum / (static_cast<double>(values.size()) * squares) : 1.0;
}

namespace {
double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

// percentile() of values in any order, which it reorders: the same nearest rank, found in
// linear time (per pool a mean and one percentile need no sort).
double percentile_of(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  const auto k = static_cast<std::ptrdiff_t>(std::clamp<std::size_t>(rank, 1, v.size()) - 1);
  std::nth_element(v.begin(), v.begin() + k, v.end());
  return v[static_cast<std::size_t>(k)];
}

// Per-pool figures: a second pass over the jobs, made only in runs with pools.
void summarize_pools(const Collector& c, Summary& s) {
  const auto& info = c.pools();
  const std::size_t n = info.size();
  s.pools.resize(n);
  std::vector<std::vector<double>> jct(n), wait(n);
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
    ps.wait_mean_s = mean(wait[i]);
    ps.wait_p95_s = percentile_of(wait[i], 95);
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
  std::vector<double> jct, wait, rho;
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
    jct.push_back(engine::to_seconds(r.end - r.submit));
    wait.push_back(engine::to_seconds(r.start - r.submit));
    if (r.gpus_per_task == 0) ++s.finished_without_gpu;
    if (r.duration > 0) rho.push_back(static_cast<double>(r.end - r.submit) / static_cast<double>(r.duration));
  }
  std::sort(jct.begin(), jct.end());
  std::sort(wait.begin(), wait.end());
  std::sort(rho.begin(), rho.end());
  // The waits of jobs that need GPUs: all of them, unless some finished jobs need none (a
  // second pass then, so that a GPU-only run sorts no more than before).
  if (s.finished_without_gpu == 0) {
    s.gpu_job_wait_mean_s = mean(wait);
    s.gpu_job_wait_p95_s = percentile(wait, 95);
  } else {
    std::vector<double> gpu_wait;
    for (const auto& r : c.jobs())
      if (!r.dropped && r.state == sched::JobState::finished && r.kind != workload::JobKind::service &&
          r.gpus_per_task > 0)
        gpu_wait.push_back(engine::to_seconds(r.start - r.submit));
    std::sort(gpu_wait.begin(), gpu_wait.end());
    s.gpu_job_wait_mean_s = mean(gpu_wait);
    s.gpu_job_wait_p95_s = percentile(gpu_wait, 95);
  }
  s.ftf_rho_max = rho.empty() ? 0 : rho.back();
  s.ftf_rho_p95 = percentile(rho, 95);
  std::vector<double> per_user;
  for (const auto& [user, us] : user_gpu_us) per_user.push_back(us);
  s.jain_fairness = jain_index(per_user);
  s.lost_gpu_hours = lost_gpu_us / 1e6 / 3600.0;
  s.jct_mean_s = mean(jct);
  s.jct_p50_s = percentile(jct, 50);
  s.jct_p95_s = percentile(jct, 95);
  s.jct_p99_s = percentile(jct, 99);
  s.wait_mean_s = mean(wait);
  s.wait_p95_s = percentile(wait, 95);
  // From the first submit to the last end; 0 when nothing ran (every job dropped: the
  // fuzzer found -6 s here).
  if (c.first_submit() >= 0 && c.last_end() > c.first_submit())
    s.makespan_s = engine::to_seconds(c.last_end() - c.first_submit());
  s.gpu_hours = c.integral_gpu_seconds() / 3600.0;
  double capacity = static_cast<double>(s.total_gpus) * s.makespan_s;
  if (capacity > 0) {
    s.gpu_utilization = c.integral_gpu_seconds() / capacity;
    s.fragmentation = c.fragmented_gpu_seconds() / capacity;
  }
  const double cpu_capacity = static_cast<double>(c.topology().total_cpu_milli()) / 1000.0 * s.makespan_s;
  if (cpu_capacity > 0) s.cpu_utilization = c.cpu_seconds() / cpu_capacity;
  // Allocated GPU time is what runs held (the timeline's integral); lost time is part of it.
  const double allocated_us = c.integral_gpu_seconds() * 1e6;
  if (allocated_us > 0) s.goodput = std::max(0.0, allocated_us - lost_gpu_us) / allocated_us;
  if (c.has_pools()) summarize_pools(c, s);
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
          {"fragmentation", fragmentation},
          {"failed", static_cast<double>(failed)},
          {"preemptions", static_cast<double>(preemptions)},
          {"failures", static_cast<double>(failures)},
          {"lost_gpu_hours", lost_gpu_hours},
          {"goodput", goodput},
          {"jain_fairness", jain_fairness},
          {"ftf_rho_max", ftf_rho_max},
          {"ftf_rho_p95", ftf_rho_p95},
          {"finished_without_gpu", static_cast<double>(finished_without_gpu)},
          {"gpu_job_wait_mean_s", gpu_job_wait_mean_s},
          {"gpu_job_wait_p95_s", gpu_job_wait_p95_s},
          {"cpu_utilization", cpu_utilization}};
}

}  // namespace schedlab::metrics
