// Moment fits and empirical tables from one pass over a trace.
#include "workload/trace_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "util/error.h"

namespace schedlab::workload {

FitReport fit_generator(JobSource& source, double load, std::uint64_t jobs) {
  if (!(load > 0)) throw InputError("", 0, "--load", "must be > 0");
  FitReport r;
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint16_t>, std::uint64_t> shapes;
  std::map<std::string, std::uint64_t> models;
  double sum_ln = 0, sum_ln2 = 0, dmin = 0, dmax = 0;
  std::uint64_t positive = 0;
  engine::Time first = 0, last = 0;
  // Jobs without GPUs: how many, their CPUs per task (whole CPUs, rounded up), memory per CPU.
  std::map<std::uint32_t, std::uint64_t> cpu_sizes;
  std::uint64_t cpu_jobs = 0;
  double cpu_total = 0, mem_gb_total = 0;
  JobSpec j;
  while (source.next(j)) {
    if (r.jobs == 0) first = j.submit;
    last = j.submit;
    ++r.jobs;
    if (!j.needs_gpu()) {
      ++cpu_jobs;
      ++cpu_sizes[std::max<std::uint32_t>(1, (j.cpu_milli + 999) / 1000)];
      if (j.mem_given) {
        cpu_total += j.cpu_milli / 1000.0;
        mem_gb_total += j.mem_mib / 1024.0;
      }
    } else {
      ++shapes[{j.tasks, j.gpus_per_task, j.gpu_milli}];
      ++models[std::string(source.strings().str(j.gpu_request))];
    }
    double d = engine::to_seconds(j.duration);
    if (d > 0) {
      double l = std::log(d);
      sum_ln += l;
      sum_ln2 += l * l;
      dmin = positive ? std::min(dmin, d) : d;
      dmax = positive ? std::max(dmax, d) : d;
      ++positive;
    }
  }
  if (r.jobs < 2) throw InputError("", 0, "--like", "a trace needs at least 2 jobs to fit");
  if (positive == 0) throw InputError("", 0, "--like", "no job with a positive duration");
  r.span_s = engine::to_seconds(last - first);
  auto& c = r.config;
  c.jobs = jobs ? jobs : r.jobs;
  // n jobs over the span: n-1 gaps.
  double rate = r.span_s > 0 ? static_cast<double>(r.jobs - 1) / (r.span_s / 3600.0) : 3600.0;
  c.arrival_rate_per_hour = rate * load;
  double mean = sum_ln / static_cast<double>(positive);
  double var = std::max(0.0, sum_ln2 / static_cast<double>(positive) - mean * mean);
  c.duration_median_s = std::exp(mean);
  c.duration_sigma = std::sqrt(var);
  c.duration_min_s = std::max(1.0, dmin);
  c.duration_max_s = std::max(c.duration_min_s, dmax);
  for (const auto& [shape, n] : shapes) {
    c.shapes.push_back({std::get<0>(shape), std::get<1>(shape), std::get<2>(shape)});
    c.shape_weights.push_back(static_cast<double>(n));
  }
  if (cpu_jobs > 0) {
    c.cpu_job_share = static_cast<double>(cpu_jobs) / static_cast<double>(r.jobs);
    c.cpu_sizes.clear();
    c.cpu_size_weights.clear();
    for (const auto& [cpus, n] : cpu_sizes) {
      c.cpu_sizes.push_back(cpus);
      c.cpu_size_weights.push_back(static_cast<double>(n));
    }
    if (cpu_total > 0) c.mem_gb_per_cpu = mem_gb_total / cpu_total;
  }
  bool any_request = models.size() > 1 || (!models.empty() && !models.begin()->first.empty());
  if (any_request)
    for (const auto& [name, n] : models) {
      c.models.push_back(name.empty() ? "any" : name);
      c.model_weights.push_back(static_cast<double>(n));
    }
  validate(c);
  return r;
}

std::string FitReport::describe() const {
  const auto& c = config;
  return fmt::format(
      "fitted {} jobs over {:.1f} h: {:.2f} arrivals/h (after load factor), ln(duration) ~ N({:.3f}, {:.3f}) "
      "(median {:.0f} s) clipped to [{:.0f}, {:.0f}] s, {} shapes, {} GPU-model requests, {:.1f}% jobs without "
      "GPUs",
      jobs, span_s / 3600, c.arrival_rate_per_hour, std::log(c.duration_median_s), c.duration_sigma,
      c.duration_median_s, c.duration_min_s, c.duration_max_s, c.shapes.size(), c.models.size(),
      100 * c.cpu_job_share);
}

}  // namespace schedlab::workload
