// One training step on the local GPUs, for `schedlab worker --gpu`: a GEMM of about the model's
// compute on each of this process's GPUs, then an NCCL allreduce of its gradient size among all
// of the gang's GPUs (every rank's, over NVLink/PCIe within a host and the network across hosts),
// so that the emulator measures what a placement costs instead of sleeping for the perf model's
// figure. The CUDA half is compiled only with the toolkit (src/calib/gpu/gpu_step_cuda.cpp);
// without it open_gpu_step throws, as `calibrate` does.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace schedlab::calib {

struct GpuStepOptions {
  double gemm_flops = 0;       // per GPU and step: one bf16 GEMM of n×n×n, n the multiple of 64 nearest (this/2)^(1/3)
  double allreduce_bytes = 0;  // per step: an fp32 sum of this many bytes; 0 = none
  std::string nccl_lib;        // explicit libnccl.so.2 path; empty: search (docs/calibration.md)
};

class GpuStep {
 public:
  virtual ~GpuStep() = default;
  // The GPUs this process drives (all it sees: CUDA_VISIBLE_DEVICES chooses them).
  virtual int local_gpus() const = 0;
  // The floating-point operations of each step's GEMM on one GPU, as run (the size is rounded).
  virtual double gemm_flops() const = 0;
  // For rank 0 of the gang: a fresh communicator id, as text that every rank gets (one token).
  virtual std::string new_gang_id() = 0;
  // Joins the gang's communicator: `world` processes of local_gpus() GPUs each, this process's
  // first GPU being number rank × local_gpus(). Blocks until every rank has joined.
  virtual void join(const std::string& gang_id, int rank, int world) = 0;
  // Runs one step and waits for it, asking `keep_waiting` about every millisecond. When it says
  // no (a peer is gone, a stop was asked), the communicator is aborted and run returns false.
  virtual bool run(const std::function<bool()>& keep_waiting) = 0;
};

// True when this binary was built with the CUDA toolkit.
bool gpu_step_built();

// With SCHEDLAB_SIMULATED_GPU_TFLOPS set (a rate in TFLOP/s): one simulated GPU whose GEMM takes
// gemm_flops at that rate and whose allreduce is free, for dry runs without a GPU. Otherwise
// open_cuda_gpu_step.
inline constexpr const char* kSimulatedGpuVariable = "SCHEDLAB_SIMULATED_GPU_TFLOPS";
std::unique_ptr<GpuStep> open_gpu_step(const GpuStepOptions& options);

// Throws EnvironmentError (one line) when there is no CUDA build, no driver, no GPU, no NCCL or
// (with gemm_flops > 0) no cuBLAS. Options are taken as valid (the caller checks them).
std::unique_ptr<GpuStep> open_cuda_gpu_step(const GpuStepOptions& options);

}  // namespace schedlab::calib
