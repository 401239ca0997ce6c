// Draining a run's work through progress steps of constant rate.
#include "perf/goodput_steps.h"

#include <algorithm>
#include <cmath>

namespace schedlab::perf {

int progress_step(double total, double remaining) {
  if (!(total > 0)) return 0;
  const double done = std::clamp(1 - remaining / total, 0.0, 1.0);
  const auto k = static_cast<int>(std::floor(done * kProgressSteps + 1e-9));
  return std::clamp(k, 0, kProgressSteps - 1);
}

namespace {
// Work left at the lower end of step k: the step ends when this much is left.
double left_at_end(double total, int k) { return total * (1 - static_cast<double>(k + 1) / kProgressSteps); }
}  // namespace

double drain_steps(double total, double remaining, double speed, double dt, const StepFactor& factor) {
  if (!(total > 0) || !(speed > 0)) return remaining;
  while (dt > 0 && remaining > 0) {
    const int k = progress_step(total, remaining);
    const double rate = speed * factor(k);
    const double in_step = k == kProgressSteps - 1 ? remaining : std::max(remaining - left_at_end(total, k), 0.0);
    if (in_step <= 0) {  // rounding left the walk on a boundary: step over it
      remaining = std::max(left_at_end(total, k), 0.0);
      continue;
    }
    if (rate * dt < in_step) return remaining - rate * dt;
    dt -= in_step / rate;
    remaining -= in_step;
  }
  return std::max(remaining, 0.0);
}

double time_to_drain(double total, double remaining, double speed, const StepFactor& factor) {
  if (!(total > 0)) return remaining / speed;
  double t = 0;
  while (remaining > 0) {
    const int k = progress_step(total, remaining);
    const double end = k == kProgressSteps - 1 ? 0.0 : left_at_end(total, k);
    const double in_step = std::max(remaining - end, 0.0);
    t += in_step / (speed * factor(k));
    remaining = end;
  }
  return t;
}

}  // namespace schedlab::perf
