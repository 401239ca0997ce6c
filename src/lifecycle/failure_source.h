// Where failures come from: a stream of (time, host, GPU or whole host, down time) in time
// order. The simulation pulls one at a time, like jobs; seeded rate models and failure trace
// files implement it (lifecycle/failures.*), and the emulator's agents report real ones.
#pragma once

#include <cstdint>

#include "cluster/topology.h"
#include "engine/time.h"

namespace schedlab::lifecycle {

inline constexpr std::uint16_t kWholeHost = 0xFFFF;

struct FailureEvent {
  engine::Time at = 0;
  cluster::HostId host = 0;
  std::uint16_t gpu = kWholeHost;  // index of the failed GPU on the host, or the whole host
  engine::Time down_for = 0;       // repair time
  bool until_back = false;         // reported from outside (a lost agent): down until it is back
};

class FailureSource {
 public:
  virtual ~FailureSource() = default;
  // The next failure, or false when there are no more.
  virtual bool next(FailureEvent& out) = 0;
};

}  // namespace schedlab::lifecycle
