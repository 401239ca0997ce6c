// A job source for workload tests: jobs submitted at given whole seconds, named t0, t1, ...,
// each 100 s long, nothing else set.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workload/job_spec.h"

namespace schedlab::testing {

class SubmitTimes final : public workload::JobSource {
 public:
  explicit SubmitTimes(std::vector<std::int64_t> at_s) : at_(std::move(at_s)) {}
  bool next(workload::JobSpec& out) override {
    if (i_ == at_.size()) return false;
    out = workload::JobSpec{};
    out.submit = at_[i_] * engine::kMicrosPerSecond;
    out.duration = 100 * engine::kMicrosPerSecond;
    out.trace_id = strings_.intern("t" + std::to_string(i_++));
    return true;
  }
  workload::StringPool& strings() override { return strings_; }

 private:
  std::vector<std::int64_t> at_;
  std::size_t i_ = 0;
  workload::StringPool strings_;
};

}  // namespace schedlab::testing
