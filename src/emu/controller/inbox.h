// The inbox of an emulation's loop: inputs from outside (emu/controller/outside_input.h) are
// posted to the wall clock from any thread, written down in the journal as the loop takes
// them, and applied in the loop's thread by apply_input(), which a journal's replay calls too.
#pragma once

#include <functional>

#include "emu/controller/outside_input.h"
#include "emu/controller/wall_clock.h"

namespace schedlab::emu {

class EmuExecutor;
class JournalWriter;

// Loop thread: hands one input to the executor and the run.
InputOutcome apply_input(const OutsideInput& input, engine::Time now, EmuExecutor& executor,
                         sim::OutsideEvents& outside);

class Inbox {
 public:
  using Then = std::function<void(const InputOutcome&, engine::Time now)>;
  Inbox(WallClock& clock, EmuExecutor& executor) : clock_(clock), executor_(executor) {}
  // Where each input is written down before it is applied (null: nowhere). Set before the
  // loop runs.
  void journal_to(JournalWriter* journal) { journal_ = journal; }
  // Any thread: applies `input` at the loop's next instant; `then` (the API's answer) runs
  // right after, in the loop's thread.
  void post(OutsideInput input, Then then = {});

 private:
  WallClock& clock_;
  EmuExecutor& executor_;
  JournalWriter* journal_ = nullptr;
};

}  // namespace schedlab::emu
