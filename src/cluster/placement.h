// Where a job's tasks run: one slot per task (host, whole GPUs or a share of one GPU, or no
// GPU at all, and the CPUs and memory the task holds there). A value type: the scheduler
// produces it, the executor and perf model read it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cluster/topology.h"

namespace schedlab::cluster {

struct TaskSlot {
  HostId host = 0;
  std::uint16_t gpus = 0;          // whole GPUs (0 for a share, and for a task without GPUs)
  std::uint16_t milli = 0;         // share of one GPU in thousandths (0 for whole GPUs)
  std::uint16_t share_slot = 0;    // which shared GPU of the host, for a share
  std::uint32_t cpu_milli = 0;     // CPUs held, in thousandths
  std::uint32_t mem_mib = 0;       // memory held, MiB
};

// Whole GPUs, plus one per share slot, of a set of task slots.
std::uint64_t gpus_of(const std::vector<TaskSlot>& tasks);

struct Placement {
  std::vector<TaskSlot> tasks;

  std::uint64_t gpus() const;          // whole GPUs, plus one per share slot
  std::uint64_t used_milli() const;    // GPU-thousandths held
  std::uint64_t cpu_milli() const;     // CPU-thousandths held
  std::uint32_t distinct_hosts() const;
  std::uint32_t distinct_racks(const Topology& topo) const;
  ModelMask models(const Topology& topo) const;
  // The widest tier the tasks span (same_host when all share one host).
  Tier span(const Topology& topo) const;
  // "h3:4+h7:4" (host:gpus; shares as h3:0.25; each task without GPUs as h3:0), hosts in
  // task order, runs of whole-GPU tasks merged.
  std::string describe() const;
  // The same text, appended to `out` (no string of its own).
  void append_description(std::string& out) const;
};

}  // namespace schedlab::cluster
