// Scaled gaps are computed from the first submission, not accumulated gap by gap, so rounding
// never drifts over a million jobs and equal submissions stay equal.
#include "workload/arrival_scale.h"

#include <cmath>
#include <optional>

#include "util/checked.h"

namespace schedlab::workload {

namespace {
class ScaledArrivals final : public ForwardingJobSource {
 public:
  ScaledArrivals(std::unique_ptr<JobSource> inner, double scale) : ForwardingJobSource(std::move(inner)), scale_(scale) {}
  bool next(JobSpec& out) override {
    if (!inner_->next(out)) return false;
    if (!first_) first_ = out.submit;
    const double gap = static_cast<double>(out.submit - *first_) * scale_;
    out.submit = engine::add_saturating(*first_, engine::from_micros(std::round(gap)));
    // The trace's record belongs to its own arrivals, not to these.
    out.recorded_wait_s = kNoRecordedWait;
    return true;
  }

 private:
  double scale_;
  std::optional<engine::Time> first_;
};
}  // namespace

std::unique_ptr<JobSource> with_arrival_scale(std::unique_ptr<JobSource> inner, double scale) {
  if (scale == 1.0) return inner;
  return std::make_unique<ScaledArrivals>(std::move(inner), scale);
}

}  // namespace schedlab::workload
