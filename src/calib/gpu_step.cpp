// The stand-in for GPU steps in builds without CUDA (the real ones: src/calib/gpu/gpu_step_cuda.cpp).
#include "calib/gpu_step.h"

#include "util/error.h"

namespace schedlab::calib {

#ifndef SCHEDLAB_HAVE_CUDA
bool gpu_step_built() { return false; }

std::unique_ptr<GpuStep> open_gpu_step(const GpuStepOptions&) {
  throw EnvironmentError(
      "worker --gpu: this schedlab was built without CUDA (no CUDA), so it cannot run GPU steps; rebuild with the "
      "CUDA toolkit (-DSCHEDLAB_CUDA=ON) or run the worker without --gpu");
}
#endif

}  // namespace schedlab::calib
