// A run whose rate follows the batch a batch-adapting policy chooses (docs/elastic.md, "Charged
// goodput"): the job's work is split into progress steps of whole percent, and within step k the
// run drains at its speed times a factor evaluated at progress k / 100 (the goodput ratio of
// perf_model.h). A StepProfile holds the factors of the steps a run can still reach and their
// suffix sums, so that how much work is left after some time, and how long the rest takes, are
// exact and cost a binary search, whatever the speed (a shared link changes it, not the factors).
#pragma once

#include <functional>
#include <vector>

namespace schedlab::perf {

inline constexpr int kProgressSteps = 100;

// The step (0..kProgressSteps-1) a job is in with `remaining` of `total` work left; a job whose
// work is done counts as in the last step. A hair of slack keeps a job exactly at a boundary
// (remaining computed as total - done) in the step that begins there.
int progress_step(double total, double remaining);

// The factor of step k (> 0).
using StepFactor = std::function<double(int step)>;

class StepProfile {
 public:
  StepProfile() = default;  // no work: drains nothing (a container's empty slot)
  // Asks `factor` once for each step from the one a job with `remaining` left is in to the last.
  StepProfile(double total, double remaining, const StepFactor& factor);
  // Work left after draining for `dt` (time units of `speed`: work per unit) from `remaining`
  // (no more than the profile was built with).
  double drain(double remaining, double speed, double dt) const;
  // Time to drain all of `remaining`.
  double time_to_drain(double remaining, double speed) const;

 private:
  double left_at_start(int k) const;  // work left when step k begins
  double total_ = 0;
  int first_ = 0;
  std::vector<double> factor_;  // by step; steps before first_ unused
  // suffix_[k]: time at speed 1 to drain steps k..last whole; suffix_[kProgressSteps] = 0.
  std::vector<double> suffix_;
};

}  // namespace schedlab::perf
