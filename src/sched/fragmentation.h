// The expected GPU fragmentation of a host against a workload, the measure that placement
// `fgd` descends (Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with
// Fragmentation Gradient Descent", USENIX ATC'23, section 4). The workload is a mix of task
// kinds (GPUs per task, share of each GPU, CPUs, GPU models allowed), each with its share of
// the workload's tasks. Against one kind, a host's fragment is the free GPU capacity that such
// a task could not use:
//   - all of it when the task cannot run there (a model it may not use, too few GPUs with
//     room for its share, too few free CPUs);
//   - otherwise the free capacity of the GPUs with less room than the task's share of one GPU
//     (for a task of whole GPUs: every partly used GPU).
// The host's fragmentation is the mix-weighted sum, in GPU thousandths. As in the authors'
// simulator, CPUs are the only resource besides GPUs that the measure checks, and tasks that
// need no GPU are left out of the mix (they can use no GPU capacity).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "cluster/allocation.h"

namespace schedlab::sched {

struct TaskKind {
  std::uint16_t gpus = 1;         // GPUs per task (1 for a share)
  std::uint16_t milli = 1000;     // room it needs on each of them, in thousandths
  std::uint32_t cpu_milli = 0;    // CPUs per task
  cluster::ModelMask models = 0;  // GPU models it may use
  auto operator<=>(const TaskKind&) const = default;
};

class FragmentationMeasure {
 public:
  // `tasks` more tasks of this kind in the workload.
  void add(const TaskKind& kind, std::uint64_t tasks = 1);
  bool empty() const { return total_ == 0; }

  // The fragmentation of a host of `model` whose GPUs have `free_milli` room each (wholly
  // free = 1000; GPUs held whole or down are left out) and `cpu_free` CPUs free.
  double of(cluster::ModelId model, std::span<const std::uint16_t> free_milli, std::uint32_t cpu_free) const;
  // The same for host h as `state` has it now.
  double of_host(const cluster::AllocationState& state, cluster::HostId h) const;
  // Host h's GPUs' room, largest first (the input of of()).
  static void free_milli_of(const cluster::AllocationState& state, cluster::HostId h, std::vector<std::uint16_t>& out);

 private:
  // Kinds a model may take with the same (gpus, milli), by CPUs: a task fits where the host
  // has `gpus` GPUs with `milli` room and at least its CPUs, so the kinds that fit are a
  // prefix of `cpu` and their share of the workload is `share[prefix length - 1]`.
  struct Group {
    std::uint16_t gpus, milli;
    std::vector<std::uint32_t> cpu;  // ascending
    std::vector<double> share;       // cumulative share of the workload's tasks
  };
  const std::vector<Group>& groups_for(cluster::ModelId model) const;

  std::map<TaskKind, std::uint64_t> kinds_;
  std::uint64_t total_ = 0;
  mutable std::unordered_map<cluster::ModelId, std::vector<Group>> groups_;  // built on first use after a change
};

}  // namespace schedlab::sched
