// Device code for GPU calibration: an empty kernel (launch latency) and buffer fills (GEMM inputs
// that are not all zeros, so the tensor cores draw realistic power).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "calib/gpu/kernels.h"

namespace schedlab::calib::gpu {
namespace {

__global__ void empty_kernel() {}

__device__ float pseudo_random(size_t i) {
  unsigned x = static_cast<unsigned>(i) * 2654435761u + 12345u;
  x ^= x >> 13;
  x *= 0x5bd1e995u;
  x ^= x >> 15;
  return (static_cast<float>(x & 0xffffu) / 65535.0f) - 0.5f;
}

__global__ void fill_f32_kernel(float* p, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = pseudo_random(i);
}

__global__ void fill_f16_kernel(__half* p, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = __float2half(pseudo_random(i));
}

__global__ void fill_bf16_kernel(__nv_bfloat16* p, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = __float2bfloat16(pseudo_random(i));
}

constexpr int kBlocks = 1024, kThreads = 256;

}  // namespace

cudaError_t launch_empty(cudaStream_t stream) {
  empty_kernel<<<1, 1, 0, stream>>>();
  return cudaGetLastError();
}

cudaError_t fill_random(void* data, size_t elements, Element type, cudaStream_t stream) {
  switch (type) {
    case Element::f32:
      fill_f32_kernel<<<kBlocks, kThreads, 0, stream>>>(static_cast<float*>(data), elements);
      break;
    case Element::f16:
      fill_f16_kernel<<<kBlocks, kThreads, 0, stream>>>(static_cast<__half*>(data), elements);
      break;
    case Element::bf16:
      fill_bf16_kernel<<<kBlocks, kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(data), elements);
      break;
  }
  return cudaGetLastError();
}

}  // namespace schedlab::calib::gpu
