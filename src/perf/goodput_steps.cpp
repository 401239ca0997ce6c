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

StepProfile::StepProfile(double total, double remaining, const StepFactor& factor)
    : total_(total), first_(progress_step(total, remaining)), factor_(kProgressSteps, 1.0),
      suffix_(kProgressSteps + 1, 0.0) {
  const double step_work = total / kProgressSteps;
  for (int k = kProgressSteps - 1; k >= first_; --k) {
    factor_[static_cast<std::size_t>(k)] = factor(k);
    suffix_[static_cast<std::size_t>(k)] =
        suffix_[static_cast<std::size_t>(k) + 1] + step_work / factor_[static_cast<std::size_t>(k)];
  }
}

double StepProfile::left_at_start(int k) const {
  return total_ * (1 - static_cast<double>(k) / kProgressSteps);
}

double StepProfile::time_to_drain(double remaining, double speed) const {
  if (!(total_ > 0)) return remaining / speed;
  if (remaining <= 0) return 0;
  const int k = std::max(progress_step(total_, remaining), first_);
  const double in_step = std::max(remaining - left_at_start(k + 1), 0.0);
  return (in_step / factor_[static_cast<std::size_t>(k)] + suffix_[static_cast<std::size_t>(k) + 1]) / speed;
}

double StepProfile::drain(double remaining, double speed, double dt) const {
  if (!(total_ > 0) || !(speed > 0) || dt <= 0 || remaining <= 0) return remaining;
  const int k = std::max(progress_step(total_, remaining), first_);
  double budget = dt * speed;  // time at speed 1
  const double fk = factor_[static_cast<std::size_t>(k)];
  const double in_step = std::max(remaining - left_at_start(k + 1), 0.0);
  if (budget < in_step / fk) return remaining - budget * fk;
  budget -= in_step / fk;
  const double rest = suffix_[static_cast<std::size_t>(k) + 1];
  if (budget >= rest) return 0;
  // The step j where the budget runs out: suffix_[j] >= target > suffix_[j + 1].
  const double target = rest - budget;
  const auto first = suffix_.begin() + k + 1, last = suffix_.begin() + kProgressSteps;
  const auto past = std::partition_point(first, last, [&](double s) { return s >= target; });
  const int j = static_cast<int>(past - suffix_.begin()) - 1;
  const double into = suffix_[static_cast<std::size_t>(j)] - target;
  return std::max(left_at_start(j) - into * factor_[static_cast<std::size_t>(j)], 0.0);
}

}  // namespace schedlab::perf
