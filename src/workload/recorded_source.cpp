// RecordedSource: record on the first pass, replay on the second.
#include "workload/recorded_source.h"

#include <cassert>

namespace schedlab::workload {

RecordedSource::RecordedSource(const std::function<std::unique_ptr<JobSource>(util::Notices&)>& open)
    : inner_(open(held_)) {
  keep_held(0);
}

void RecordedSource::keep_held(std::uint64_t call) {
  for (auto& text : held_.take_held()) notices_.push_back({call, std::move(text)});
}

void RecordedSource::replay_to(util::Notices& notices) {
  assert(!replay_);
  replay_ = &notices;
  calls_ = 0;
  for (; said_ < notices_.size() && notices_[said_].call == 0; ++said_) notices.say(notices_[said_].text);
}

bool RecordedSource::next(JobSpec& out) {
  ++calls_;
  if (!replay_) {
    const bool got = inner_->next(out);
    if (held_.held() > 0) keep_held(calls_);
    if (got) jobs_.push_back(out);
    return got;
  }
  for (; said_ < notices_.size() && notices_[said_].call <= calls_; ++said_) replay_->say(notices_[said_].text);
  if (given_ == jobs_.size()) return false;
  out = jobs_[given_++];
  jobs_.release_before(given_);
  return true;
}

double RecordedSource::fraction_done() const {
  if (!replay_) return inner_->fraction_done();
  return jobs_.empty() ? 1.0 : static_cast<double>(given_) / static_cast<double>(jobs_.size());
}

}  // namespace schedlab::workload
