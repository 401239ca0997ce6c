// Host entry points of the calibration kernels (kernels.cu), callable from plain C++.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace schedlab::calib::gpu {

enum class Element { f32, f16, bf16 };

// One empty <<<1,1>>> kernel on `stream`.
cudaError_t launch_empty(cudaStream_t stream);
// Fills `elements` values of `type` with a fixed pseudo-random pattern in [−0.5, 0.5].
cudaError_t fill_random(void* data, size_t elements, Element type, cudaStream_t stream);

}  // namespace schedlab::calib::gpu
