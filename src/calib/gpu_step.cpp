// Opening GPU steps: the simulated device (SCHEDLAB_SIMULATED_GPU_TFLOPS), or the CUDA one
// (src/calib/gpu/gpu_step_cuda.cpp), or, in builds without CUDA, a one-line error.
#include "calib/gpu_step.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "util/checked.h"
#include "util/error.h"

namespace schedlab::calib {

namespace {

// One pretend GPU whose GEMM runs at the given rate and whose allreduce costs nothing: the GPU
// check's --dry-run drives the worker's and the emulator's --gpu paths with it on machines
// without a GPU (CI), so that their flow is tested where no CUDA runs.
class SimulatedGpuStep final : public GpuStep {
 public:
  SimulatedGpuStep(double flops_per_s, double gemm_flops)
      : flops_(gemm_flops), step_(std::chrono::duration<double>(gemm_flops / flops_per_s)) {}
  int local_gpus() const override { return 1; }
  double gemm_flops() const override { return flops_; }
  std::string new_gang_id() override { return "simulated"; }
  void join(const std::string&, int, int) override {}
  bool run(const std::function<bool()>& keep_waiting) override {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::nanoseconds>(step_);
    for (auto now = std::chrono::steady_clock::now(); now < end; now = std::chrono::steady_clock::now()) {
      if (!keep_waiting()) return false;
      std::this_thread::sleep_for(std::min<std::chrono::nanoseconds>(end - now, std::chrono::milliseconds(1)));
    }
    return true;
  }

 private:
  double flops_;
  std::chrono::duration<double> step_;
};

}  // namespace

#ifndef SCHEDLAB_HAVE_CUDA
bool gpu_step_built() { return false; }

std::unique_ptr<GpuStep> open_cuda_gpu_step(const GpuStepOptions&) {
  throw util::EnvironmentError(
      "worker --gpu: this schedlab was built without CUDA (no CUDA), so it cannot run GPU steps; rebuild with the "
      "CUDA toolkit (-DSCHEDLAB_CUDA=ON) or run the worker without --gpu");
}
#endif

std::unique_ptr<GpuStep> open_gpu_step(const GpuStepOptions& options) {
  if (const char* v = std::getenv(kSimulatedGpuVariable); v && *v) {
    const double tflops =
        util::checked_number<double>(v, util::FieldContext{"", 0, "env SCHEDLAB_SIMULATED_GPU_TFLOPS"}, 1e-6, 1e6);
    return std::make_unique<SimulatedGpuStep>(tflops * 1e12, options.gemm_flops);
  }
  return open_cuda_gpu_step(options);
}

}  // namespace schedlab::calib
