// Real GPUs for an emulation: the list dealt to hosts, and each model's calibrated GEMM rate.
#include "emu/controller/real_gpus.h"

#include <fmt/format.h>

#include "perf/calibration_profile.h"
#include "util/error.h"

namespace schedlab::emu {

RealGpus assign_real_gpus(const cluster::Topology& topo, const std::vector<std::uint32_t>& gpus,
                          const std::string& profile_file, const std::string& option) {
  std::size_t total = 0;
  for (const auto& h : topo.hosts()) total += h.gpus;
  if (gpus.size() != total)
    throw util::InputError(
        fmt::format("{}: {} GPU(s) listed, but the cluster '{}' has {}: list one real GPU for each of "
                    "its GPUs (a one-GPU machine emulates a cluster of one host with one GPU)",
                    option, gpus.size(), topo.name(), total));
  RealGpus out;
  std::size_t next = 0;
  for (const auto& h : topo.hosts()) {
    out.per_host.emplace_back(gpus.begin() + static_cast<std::ptrdiff_t>(next),
                              gpus.begin() + static_cast<std::ptrdiff_t>(next + h.gpus));
    next += h.gpus;
  }
  const perf::CalibrationProfile profile =
      profile_file.empty() ? perf::datasheet_profile()
                           : perf::overlay_profile(perf::datasheet_profile(), perf::load_profile(profile_file));
  const std::string source = profile_file.empty() ? "the datasheet profile" : "'" + profile_file + "'";
  out.steps.on = true;
  out.steps.flops_per_s.assign(topo.catalog().size(), 0);
  for (const auto& h : topo.hosts()) {
    if (h.gpus == 0 || out.steps.flops_per_s[h.model] > 0) continue;
    const std::string& model = topo.catalog().model(h.model).name;
    auto tflops = profile.tflops(model, perf::Dtype::bf16);
    if (!tflops) tflops = profile.tflops(model, perf::Dtype::fp16);
    if (!tflops)
      throw util::InputError(
          fmt::format("{}: {} has no bf16 or fp16 TFLOP/s for GPU model {}, which sizes each step's "
                      "GEMM (measure one: schedlab calibrate)",
                      option, source, model));
    out.steps.flops_per_s[h.model] = *tflops * 1e12;
  }
  return out;
}

}  // namespace schedlab::emu
