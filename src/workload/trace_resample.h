// A generator that keeps a trace's load (`schedlab trace generate --like T --load X`).
//
// Each generated job is one whole row of T drawn uniformly with replacement (the empirical
// joint distribution of T's job shape, duration, user, GPU-model request, CPUs and memory,
// pool, priority and estimate), so the duration tail and the links between size, duration
// and user are T's own; no distribution is fitted. Arrivals are a Poisson process conditioned
// on its count: n−1 exponential gaps, normalised so that the submissions span exactly
//   S = G / (X · D_T),
// where G is the GPU-hours of the drawn rows and D_T = T's GPU-hours per hour of its
// submission span (first to last submission, as `trace stats` measures both). The generated
// trace therefore asks for X times T's GPU-hours per day, to rounding; a trace without
// GPU-hours (CPU jobs only) keeps X times its job rate instead. What is not kept: T's
// diurnal and weekly arrival pattern and its bursts (arrivals are memoryless), and the
// order of jobs in T. Documented in docs/workloads.md ("Generating like a trace").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workload/job_spec.h"

namespace schedlab::workload {

// What the resampler read from T.
struct ResampleReport {
  std::uint64_t rows = 0;      // jobs of T
  double span_s = 0;           // T's first to last submission
  double gpu_hours = 0;        // T's GPU-hours
  std::uint64_t jobs = 0;      // jobs generated
  double load = 1;             // X
  double out_span_s = 0;       // the generated submissions' span
  double out_gpu_hours = 0;    // the generated jobs' GPU-hours
  std::string describe() const;
};

// Reads all of `trace` (kept in memory, one JobSpec per row) and returns a source of `jobs`
// resampled jobs (0 = as many as T has) at `load` times T's demand, seeded. `report` is
// filled before the first job is handed out. Throws InputError for a trace of fewer than 2
// jobs, one whose submissions span 0 s, or a load outside [1e-3, 1e3].
std::unique_ptr<JobSource> make_resampler(std::unique_ptr<JobSource> trace, double load, std::uint64_t jobs,
                                          std::uint64_t seed, ResampleReport& report);

}  // namespace schedlab::workload
