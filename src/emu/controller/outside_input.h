// What reaches an emulation's loop from outside, as values: an agent's report about a task, a
// host lost or back, a job submitted or stopped over the API. Values rather than closures so
// that the journal can write each one down as the loop takes it, and `emulate --resume` can
// hand the same ones, at the same instants, to a fresh loop (emu/controller/journal.h). The Inbox posts
// them to the wall clock from any thread; apply_input() runs one in the loop's thread.
#pragma once

#include <functional>
#include <variant>

#include "emu/controller/wall_clock.h"
#include "emu/protocol.h"
#include "sim/clock.h"

namespace schedlab::emu {

class EmuExecutor;
class JournalWriter;

struct ReportInput {
  cluster::HostId host = 0;
  TaskReport report;
  bool operator==(const ReportInput&) const = default;
};
struct HostLostInput {
  cluster::HostId host = 0;
  bool operator==(const HostLostInput&) const = default;
};
struct HostBackInput {
  cluster::HostId host = 0;
  bool operator==(const HostBackInput&) const = default;
};
struct SubmitInput {
  sim::SubmittedJob job;
};
struct KillInput {
  workload::JobId job = 0;
  bool operator==(const KillInput&) const = default;
};
struct ScaleInput {
  std::string service;
  std::uint32_t instances = 0;
  bool operator==(const ScaleInput&) const = default;
};
using OutsideInput = std::variant<ReportInput, HostLostInput, HostBackInput, SubmitInput, KillInput, ScaleInput>;

// What the loop answered: the id of a submitted job; whether a stopped job or a scaled service
// was found, and what the scale did.
struct InputOutcome {
  workload::JobId job = 0;
  bool found = false;
  sim::ServiceScaled scaled;
};

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
