// Replay first, then the wall clock.
#include "emu/controller/journal_clock.h"

namespace schedlab::emu {

JournalClock::JournalClock(std::vector<JournalBatch> batches, Apply apply,
                           std::function<void(engine::Time)> handover, WallClock& live)
    : batches_(std::move(batches)), apply_(std::move(apply)), handover_(std::move(handover)), live_(live) {}

engine::Time JournalClock::advance(engine::Time next, sim::OutsideEvents& outside) {
  if (!handed_over_) {
    if (pos_ < batches_.size()) {
      const auto& b = batches_[pos_];
      // Live, a queued event at or before the arrivals' instant was handled first.
      if (next != engine::kTimeMax && next <= b.at) {
        last_ = std::max(last_, next);
        return next;
      }
      ++pos_;
      for (const auto& in : b.inputs) apply_(in, b.at, outside);
      last_ = std::max(last_, b.at);
      return b.at;
    }
    handed_over_ = true;
    batches_.clear();
    batches_.shrink_to_fit();
    if (handover_) handover_(last_);
  }
  return live_.advance(next, outside);
}

}  // namespace schedlab::emu
