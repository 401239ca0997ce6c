// GPU steps for `schedlab worker --gpu`: cuBLAS GEMMs and an NCCL allreduce across the gang's
// processes (communicator from ncclCommInitRank with an id that rank 0 hands out).
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "calib/gpu/kernels.h"
#include "calib/gpu/libraries.h"
#include "calib/gpu_step.h"
#include "util/error.h"

namespace schedlab::calib {
namespace gpu_step_cuda {

constexpr const char* kWho = "worker --gpu";
constexpr auto kPollEvery = std::chrono::microseconds(200);

void check(cudaError_t e, const char* what) { gpu::cuda_check(e, what, kWho); }

// One GPU of this process: its stream, GEMM operands, gradient buffer and communicator.
struct Device {
  int index = 0;
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr;
  gpu::cublasHandle_t blas = nullptr;
  void* a = nullptr;
  void* b = nullptr;
  void* c = nullptr;
  void* grad = nullptr;
  gpu::ncclComm_t comm = nullptr;
};

std::string to_hex(const gpu::NcclUniqueId& id) {
  std::string s;
  for (unsigned char ch : id.internal) s += fmt::format("{:02x}", ch);
  return s;
}

gpu::NcclUniqueId from_hex(const std::string& text) {
  gpu::NcclUniqueId id{};
  if (text.size() != 2 * sizeof id.internal)
    throw util::EnvironmentError(fmt::format("{}: the gang's communicator id has {} characters, not {}", kWho,
                                             text.size(), 2 * sizeof id.internal));
  for (std::size_t i = 0; i < sizeof id.internal; ++i) {
    unsigned v = 0;
    for (int k = 0; k < 2; ++k) {
      const char ch = text[2 * i + k];
      const int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
      if (d < 0) throw util::EnvironmentError(fmt::format("{}: the gang's communicator id is not hexadecimal", kWho));
      v = v * 16 + static_cast<unsigned>(d);
    }
    id.internal[i] = static_cast<char>(v);
  }
  return id;
}

class CudaGpuStep final : public GpuStep {
 public:
  explicit CudaGpuStep(const GpuStepOptions& o) {
    try {
      open(o);
    } catch (...) {
      release();
      throw;
    }
  }

  ~CudaGpuStep() override { release(); }

  int local_gpus() const override { return static_cast<int>(devices_.size()); }
  double gemm_flops() const override { return blas_.handle ? 2.0 * n_ * n_ * static_cast<double>(n_) : 0.0; }

  std::string new_gang_id() override {
    gpu::NcclUniqueId id{};
    gpu::nccl_check(nccl_, nccl_.GetUniqueId(&id), "ncclGetUniqueId", kWho);
    return to_hex(id);
  }

  void join(const std::string& gang_id, int rank, int world) override {
    const gpu::NcclUniqueId id = from_hex(gang_id);
    const int g = local_gpus();
    gpu::nccl_check(nccl_, nccl_.GroupStart(), "ncclGroupStart", kWho);
    for (Device& d : devices_) {
      check(cudaSetDevice(d.index), "cudaSetDevice");
      gpu::nccl_check(nccl_, nccl_.CommInitRank(&d.comm, world * g, id, rank * g + d.index), "ncclCommInitRank", kWho);
    }
    gpu::nccl_check(nccl_, nccl_.GroupEnd(), "ncclGroupEnd", kWho);
  }

  bool run(const std::function<bool()>& keep_waiting) override {
    const float one = 1.0f, zero = 0.0f;
    for (Device& d : devices_) {
      check(cudaSetDevice(d.index), "cudaSetDevice");
      if (d.blas) {
        const int st = blas_.GemmEx(d.blas, gpu::kCublasOpN, gpu::kCublasOpN, n_, n_, n_, &one, d.a, gpu::kCudaR16BF,
                                    n_, d.b, gpu::kCudaR16BF, n_, &zero, d.c, gpu::kCudaR16BF, n_,
                                    gpu::kCublasCompute32F, gpu::kCublasGemmDefault);
        if (st != 0) throw util::EnvironmentError(fmt::format("{}: cublasGemmEx failed with status {}", kWho, st));
      }
    }
    if (count_ > 0) {
      gpu::nccl_check(nccl_, nccl_.GroupStart(), "ncclGroupStart", kWho);
      for (Device& d : devices_)
        gpu::nccl_check(nccl_, nccl_.AllReduce(d.grad, d.grad, count_, gpu::kNcclFloat32, gpu::kNcclSum, d.comm, d.stream),
                        "ncclAllReduce", kWho);
      gpu::nccl_check(nccl_, nccl_.GroupEnd(), "ncclGroupEnd", kWho);
    }
    for (Device& d : devices_) {
      check(cudaSetDevice(d.index), "cudaSetDevice");
      check(cudaEventRecord(d.done, d.stream), "cudaEventRecord");
    }
    // Wait without blocking in the driver, so that a lost peer (whose allreduce never ends)
    // can be noticed and the communicator aborted.
    for (Device& d : devices_) {
      for (;;) {
        const cudaError_t e = cudaEventQuery(d.done);
        if (e == cudaSuccess) break;
        if (e != cudaErrorNotReady) check(e, "cudaEventQuery");
        if (!keep_waiting()) {
          aborted_ = true;
          for (Device& x : devices_)
            if (x.comm) nccl_.CommAbort(x.comm);
          for (Device& x : devices_) x.comm = nullptr;
          return false;
        }
        std::this_thread::sleep_for(kPollEvery);
      }
    }
    return true;
  }

 private:
  void open(const GpuStepOptions& o) {
    int n = 0;
    if (cudaError_t e = cudaGetDeviceCount(&n); e != cudaSuccess) {
      if (e == cudaErrorInsufficientDriver) {
        void* driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!driver)
          throw util::EnvironmentError(fmt::format(
              "{}: no CUDA GPU: no NVIDIA driver on this machine (libcuda.so.1 not found); run without --gpu", kWho));
        ::dlclose(driver);
      }
      throw util::EnvironmentError(fmt::format(
          "{}: no CUDA GPU usable: {} (cudaGetDeviceCount; check CUDA_VISIBLE_DEVICES)", kWho, cudaGetErrorString(e)));
    }
    if (n < 1) throw util::EnvironmentError(fmt::format("{}: no CUDA GPU found (check CUDA_VISIBLE_DEVICES)", kWho));
    nccl_ = gpu::load_nccl(o.nccl_lib, kWho);
    if (o.gemm_flops > 0) {
      std::string why_not;
      blas_ = gpu::load_cublas(why_not, kWho);
      if (!blas_.handle) throw util::EnvironmentError(fmt::format("{}: {}", kWho, why_not));
    }
    devices_.resize(static_cast<std::size_t>(n));
    // n×n×n GEMM: 2·n³ flops.
    // n×n×n with n a multiple of 64 (tensor cores want aligned sizes: on an H200, n = 17,100 ran
    // at a fifth of the rate of n = 17,088); the flops done are gemm_flops() = 2·n³.
    n_ = std::max(64, static_cast<int>(std::lround(std::cbrt(std::max(o.gemm_flops, 0.0) / 2.0) / 64.0)) * 64);
    const std::size_t grad_bytes = static_cast<std::size_t>(o.allreduce_bytes) / 4 * 4;
    for (int i = 0; i < n; ++i) {
      Device& d = devices_[static_cast<std::size_t>(i)];
      d.index = i;
      check(cudaSetDevice(i), "cudaSetDevice");
      check(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking), "cudaStreamCreate");
      check(cudaEventCreateWithFlags(&d.done, cudaEventDisableTiming), "cudaEventCreate");
      if (o.gemm_flops > 0) {
        std::size_t free_b = 0, total_b = 0;
        check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
        const std::size_t elems = static_cast<std::size_t>(n_) * static_cast<std::size_t>(n_);
        if (3.0 * static_cast<double>(elems) * 2 > 0.8 * static_cast<double>(free_b))
          throw util::EnvironmentError(
              fmt::format("{}: a {}x{}x{} GEMM (--gemm-flops {:g}) needs more than GPU {}'s {} free bytes", kWho, n_,
                          n_, n_, o.gemm_flops, i, free_b));
        for (void** p : {&d.a, &d.b, &d.c}) {
          check(cudaMalloc(p, elems * 2), "cudaMalloc");
          check(gpu::fill_random(*p, elems, gpu::Element::bf16, d.stream), "fill kernel");
        }
        if (blas_.Create(&d.blas) != 0) throw util::EnvironmentError(fmt::format("{}: cublasCreate failed", kWho));
        blas_.SetStream(d.blas, d.stream);
      }
      if (grad_bytes > 0) {
        check(cudaMalloc(&d.grad, grad_bytes), "cudaMalloc");
        check(gpu::fill_random(d.grad, grad_bytes / 4, gpu::Element::f32, d.stream), "fill kernel");
      }
      check(cudaStreamSynchronize(d.stream), "cudaStreamSynchronize");
    }
    count_ = grad_bytes / 4;
  }

  void release() {
    for (Device& d : devices_) {
      cudaSetDevice(d.index);
      if (d.comm) {
        if (aborted_)
          nccl_.CommAbort(d.comm);
        else
          nccl_.CommDestroy(d.comm);
      }
      if (d.blas) blas_.Destroy(d.blas);
      for (void* p : {d.a, d.b, d.c, d.grad})
        if (p) cudaFree(p);
      if (d.done) cudaEventDestroy(d.done);
      if (d.stream) cudaStreamDestroy(d.stream);
    }
    devices_.clear();
  }

  gpu::NcclApi nccl_;
  gpu::CublasApi blas_;
  std::vector<Device> devices_;
  int n_ = 1;
  std::size_t count_ = 0;
  bool aborted_ = false;
};

}  // namespace gpu_step_cuda

bool gpu_step_built() { return true; }

std::unique_ptr<GpuStep> open_cuda_gpu_step(const GpuStepOptions& options) {
  return std::make_unique<gpu_step_cuda::CudaGpuStep>(options);
}

}  // namespace schedlab::calib
