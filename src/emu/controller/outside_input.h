// What reaches an emulation's loop from outside, as values: an agent's report about a task, a
// host lost or back, a job submitted or stopped over the API. Values rather than closures so
// that the journal can write each one down as the loop takes it, and `emulate --resume` can
// hand the same ones, at the same instants, to a fresh loop (emu/controller/journal.h). Plain
// values only: the inbox that posts, journals and applies them (emu/controller/inbox.h) and
// the journal include this header, never the other way round.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "emu/protocol.h"
#include "sim/clock.h"

namespace schedlab::emu {

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
  std::string refused;  // a submitted job that could never run: why (nothing was submitted)
  sim::ServiceScaled scaled;
};

}  // namespace schedlab::emu
