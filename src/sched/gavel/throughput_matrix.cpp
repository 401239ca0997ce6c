// Checks of a throughput matrix and the equal-share allocations Gavel normalises by.
#include "sched/gavel/throughput_matrix.h"

#include <fmt/format.h>

#include <cmath>

#include "util/error.h"

namespace schedlab::sched::gavel {
namespace {

std::string job_label(const GavelJob& j, std::size_t i) {
  return j.name.empty() ? fmt::format("job {}", i) : fmt::format("job '{}'", j.name);
}

std::string type_label(const GpuType& t, std::size_t k) {
  return t.name.empty() ? fmt::format("GPU type {}", k) : fmt::format("GPU type '{}'", t.name);
}

}  // namespace

void check_matrix(const ThroughputMatrix& m, bool finish_time) {
  using util::InputError;
  if (m.types.empty()) throw InputError("a throughput matrix needs at least one GPU type");
  for (std::size_t k = 0; k < m.types.size(); ++k)
    if (m.types[k].count < 0)
      throw InputError(fmt::format("{}: GPU count {} is negative", type_label(m.types[k], k), m.types[k].count));
  for (std::size_t i = 0; i < m.jobs.size(); ++i) {
    const GavelJob& j = m.jobs[i];
    const std::string who = job_label(j, i);
    if (j.throughput.size() != m.types.size())
      throw InputError(fmt::format("{}: {} throughputs for {} GPU types", who, j.throughput.size(), m.types.size()));
    if (j.scale_factor < 1)
      throw InputError(fmt::format("{}: scale factor {} (GPUs it needs) must be at least 1", who, j.scale_factor));
    if (!std::isfinite(j.weight) || j.weight <= 0)
      throw InputError(fmt::format("{}: priority weight {} must be above 0", who, j.weight));
    bool runs_somewhere = false, has_throughput = false;
    int largest = 0;
    for (std::size_t k = 0; k < m.types.size(); ++k) {
      const double t = j.throughput[k];
      if (!std::isfinite(t) || t < 0)
        throw InputError(fmt::format("{}: throughput {} on {} must be a number >= 0 (0: cannot run there)", who, t,
                                     type_label(m.types[k], k)));
      if (t > 0) {
        has_throughput = true;
        if (m.types[k].count > largest) largest = m.types[k].count;
        if (m.types[k].count >= j.scale_factor) runs_somewhere = true;
      }
    }
    if (!has_throughput) throw InputError(fmt::format("{}: throughput is 0 on every GPU type: it can run nowhere", who));
    if (!runs_somewhere)
      throw InputError(fmt::format("{}: needs {} GPUs at once, but the GPU types it runs on have at most {}", who,
                                   j.scale_factor, largest));
    if (finish_time) {
      if (!std::isfinite(j.remaining_work) || j.remaining_work <= 0)
        throw InputError(fmt::format("{}: remaining work {} must be above 0 (a finished job is not active)", who,
                                     j.remaining_work));
      if (!std::isfinite(j.elapsed_s) || j.elapsed_s < 0)
        throw InputError(fmt::format("{}: elapsed time {} s must be >= 0", who, j.elapsed_s));
      if (!std::isfinite(j.isolated_time_so_far_s) || j.isolated_time_so_far_s < 0)
        throw InputError(fmt::format("{}: isolated time so far {} s must be >= 0", who, j.isolated_time_so_far_s));
    }
  }
}

double Allocation::effective_throughput(const ThroughputMatrix& m, std::size_t job) const {
  double sum = 0;
  for (std::size_t k = 0; k < types_; ++k) sum += m.jobs[job].throughput[k] * at(job, k);
  return sum;
}

std::vector<double> proportional_throughputs(const ThroughputMatrix& m) {
  double gpus = 0;
  for (const GpuType& t : m.types) gpus += t.count;
  std::vector<double> out(m.jobs.size(), 0.0);
  if (gpus <= 0) return out;
  for (std::size_t i = 0; i < m.jobs.size(); ++i)
    for (std::size_t k = 0; k < m.types.size(); ++k)
      out[i] += m.jobs[i].throughput[k] * m.types[k].count / gpus;
  return out;
}

Allocation isolated_allocation(const ThroughputMatrix& m) {
  const std::size_t n = m.jobs.size();
  Allocation x(n, m.types.size());
  for (std::size_t i = 0; i < n; ++i) {
    double row = 0;
    for (std::size_t k = 0; k < m.types.size(); ++k) {
      x.at(i, k) = m.types[k].count / (static_cast<double>(n) * m.jobs[i].scale_factor);
      row += x.at(i, k);
    }
    if (row > 1)
      for (std::size_t k = 0; k < m.types.size(); ++k) x.at(i, k) /= row;
  }
  return x;
}

std::vector<double> isolated_throughputs(const ThroughputMatrix& m) {
  const Allocation x = isolated_allocation(m);
  std::vector<double> out(m.jobs.size());
  for (std::size_t i = 0; i < m.jobs.size(); ++i) out[i] = x.effective_throughput(m, i);
  return out;
}

}  // namespace schedlab::sched::gavel
