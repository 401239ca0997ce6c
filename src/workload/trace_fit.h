// Fits the synthetic generator to a real trace (`schedlab trace generate --like FILE`):
// Poisson arrivals at the trace's mean rate (times `load`), log-normal durations with the
// trace's mean and standard deviation of ln(duration) and its min/max, and the trace's own
// job shapes and GPU-model requests with their empirical frequencies; jobs without GPUs as
// the generator's CPU-job share, with their CPU counts (rounded up to whole CPUs) and their
// mean memory per CPU.
#pragma once

#include <string>

#include "workload/generator.h"

namespace schedlab::workload {

struct FitReport {
  std::uint64_t jobs = 0;
  double span_s = 0;
  std::string describe() const;
  GeneratorConfig config;
};

// Reads the whole trace once. `load` scales the arrival rate; `jobs` (0 = as many as the
// trace) sets the number of jobs to generate.
FitReport fit_generator(JobSource& source, double load, std::uint64_t jobs);

}  // namespace schedlab::workload
