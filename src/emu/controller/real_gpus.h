// `schedlab emulate --gpus`: the emulation runs its tasks on this machine's real GPUs. The listed
// GPUs are dealt to the cluster's hosts in order (host h0 gets the first ones), so the cluster
// must have exactly as many GPUs as the list; and each GPU model's bf16 rate comes from a
// calibration profile (the datasheet when none is given), which sizes every step's GEMM.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cluster/topology.h"
#include "emu/controller/emu_executor.h"

namespace schedlab::emu {

struct RealGpus {
  std::vector<std::vector<std::uint32_t>> per_host;  // real indices of host h's GPUs
  GpuSteps steps;
};

// InputError (naming `option`) when the list and the cluster differ in size, or when the profile
// has no bf16 (or fp16) rate for a GPU model of the cluster.
RealGpus assign_real_gpus(const cluster::Topology& topo, const std::vector<std::uint32_t>& gpus,
                          const std::string& profile_file, const std::string& option = "--gpus");

}  // namespace schedlab::emu
