// Helpers for the scheduler's unit tests: a job spec and its PendingJob, and one placement
// attempt through a part from the registry.
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "../support/sim_harness.h"
#include "sched/registry.h"

namespace schedlab::testing {

inline workload::JobSpec spec_of(std::uint32_t tasks, std::uint32_t gpus_per_task, std::uint16_t milli = 1000,
                                 bool gang = true) {
  workload::JobSpec s;
  s.tasks = tasks;
  s.gpus_per_task = gpus_per_task;
  s.gpu_milli = milli;
  s.gang = gang;
  s.duration = 100 * kMicrosPerSecond;
  return s;
}

inline sched::PendingJob pending(const workload::JobSpec& s, cluster::ModelMask requested = ~cluster::ModelMask{0}) {
  sched::PendingJob job{&s, requested, s.tasks, 0};
  job.allowed = requested;  // as the scheduler sets it with a gpu-model filter
  return job;
}

// Asks the named placement for `want` tasks; the transaction is committed so that the
// caller sees the result in `alloc`.
inline std::vector<cluster::TaskSlot> place_with(const std::string& placement, const workload::JobSpec& s,
                                                 cluster::AllocationState& alloc, cluster::ModelMask allowed,
                                                 std::uint32_t want = 0) {
  auto part = sched::builtin_parts().placements.make(placement, {});
  std::vector<cluster::TaskSlot> out;
  cluster::AllocationTransaction tx(alloc);
  part->place(pending(s), want ? want : s.tasks, allowed, tx, out);
  tx.commit();
  return out;
}

// "h0:2 h1:2" — one entry per task slot.
inline std::string slots_text(const std::vector<cluster::TaskSlot>& slots) {
  std::string out;
  for (const auto& t : slots) {
    if (!out.empty()) out += ' ';
    out += t.milli ? fmt::format("h{}:{}m@{}", t.host, t.milli, t.share_slot) : fmt::format("h{}:{}", t.host, t.gpus);
  }
  return out;
}

}  // namespace schedlab::testing
