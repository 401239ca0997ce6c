// A run whose rate follows the batch a batch-adapting policy chooses (docs/elastic.md, "Charged
// goodput"): the job's work is split into progress steps of whole percent, and within step k the
// run drains at its speed times a factor evaluated at progress k / 100 (the goodput ratio of
// perf_model.h). These plain functions walk the steps: how much work is left after some time,
// and how long the rest takes. The factor is piecewise constant in progress, so both are exact.
#pragma once

#include <functional>

namespace schedlab::perf {

inline constexpr int kProgressSteps = 100;

// The step (0..kProgressSteps-1) a job is in with `remaining` of `total` work left; a job whose
// work is done counts as in the last step. A hair of slack keeps a job exactly at a boundary
// (remaining computed as total - done) in the step that begins there.
int progress_step(double total, double remaining);

// The factor of step k (> 0; the caller memoises it).
using StepFactor = std::function<double(int step)>;

// Work left after draining for `dt` (time units of `speed`: work per unit) from `remaining`.
double drain_steps(double total, double remaining, double speed, double dt, const StepFactor& factor);
// Time to drain all of `remaining`.
double time_to_drain(double total, double remaining, double speed, const StepFactor& factor);

}  // namespace schedlab::perf
