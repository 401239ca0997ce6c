// The clock of a resumed emulation: it first replays the journal, handing each batch of
// inputs to the loop at its instant exactly as the wall clock once did (a batch goes before
// the next queued event only when it is strictly earlier, as it did live), so the loop makes
// the same decisions again without waiting. When the journal is exhausted it calls
// `handover` once (the controller starts and the agents come back) and from then on is the
// wall clock.
#pragma once

#include <functional>
#include <vector>

#include "emu/controller/journal.h"
#include "emu/controller/wall_clock.h"

namespace schedlab::emu {

class JournalClock final : public sim::Clock {
 public:
  using Apply = std::function<void(const OutsideInput&, engine::Time now, sim::OutsideEvents&)>;
  // `handover(last)`: `last` is the last instant replayed (kTimeMin-like when none was).
  JournalClock(std::vector<JournalBatch> batches, Apply apply, std::function<void(engine::Time last)> handover,
               WallClock& live);
  engine::Time advance(engine::Time next, sim::OutsideEvents& outside) override;
  bool replaying() const { return !handed_over_; }

 private:
  std::vector<JournalBatch> batches_;
  std::size_t pos_ = 0;
  Apply apply_;
  std::function<void(engine::Time)> handover_;
  WallClock& live_;
  bool handed_over_ = false;
  engine::Time last_ = std::numeric_limits<engine::Time>::min();
};

}  // namespace schedlab::emu
