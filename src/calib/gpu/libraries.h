// NCCL and cuBLAS for the GPU code (calibration, the worker's GPU steps), opened at run time with
// dlopen so that the schedlab binary starts without them; only the few symbols used are declared
// here (ABI as in nccl.h 2.x and cublas_api.h 12/13). Errors name `who` (the command) first.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace schedlab::calib::gpu {

using ncclComm_t = struct ncclComm*;
using ncclResult_t = int;        // enum; ncclSuccess = 0
constexpr int kNcclFloat32 = 7;  // ncclFloat32
constexpr int kNcclSum = 0;      // ncclSum
struct NcclUniqueId {
  char internal[128];  // NCCL_UNIQUE_ID_BYTES
};

struct NcclApi {
  void* handle = nullptr;
  std::string path;
  ncclResult_t (*GetVersion)(int*) = nullptr;
  ncclResult_t (*GetUniqueId)(NcclUniqueId*) = nullptr;
  ncclResult_t (*CommInitAll)(ncclComm_t*, int, const int*) = nullptr;
  ncclResult_t (*CommInitRank)(ncclComm_t*, int, NcclUniqueId, int) = nullptr;
  ncclResult_t (*CommDestroy)(ncclComm_t) = nullptr;
  ncclResult_t (*CommAbort)(ncclComm_t) = nullptr;
  ncclResult_t (*AllReduce)(const void*, void*, size_t, int, int, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*GroupStart)() = nullptr;
  ncclResult_t (*GroupEnd)() = nullptr;
  const char* (*GetErrorString)(ncclResult_t) = nullptr;
};

using cublasHandle_t = struct cublasContext*;
using cublasStatus_t = int;                                   // CUBLAS_STATUS_SUCCESS = 0
constexpr int kCublasOpN = 0;                                 // CUBLAS_OP_N
constexpr int kCublasCompute32F = 68;                         // CUBLAS_COMPUTE_32F
constexpr int kCublasGemmDefault = -1;                        // CUBLAS_GEMM_DEFAULT
constexpr int kCudaR32F = 0, kCudaR16F = 2, kCudaR16BF = 14;  // cudaDataType (library_types.h)

struct CublasApi {
  void* handle = nullptr;
  std::string path;
  cublasStatus_t (*Create)(cublasHandle_t*) = nullptr;
  cublasStatus_t (*Destroy)(cublasHandle_t) = nullptr;
  cublasStatus_t (*SetStream)(cublasHandle_t, cudaStream_t) = nullptr;
  cublasStatus_t (*GemmEx)(cublasHandle_t, int, int, int, int, int, const void*, const void*, int, int, const void*,
                           int, int, const void*, void*, int, int, int, int) = nullptr;
};

// Throws EnvironmentError "WHO: WHAT failed: ..." for a CUDA or NCCL error.
void cuda_check(cudaError_t e, const char* what, const char* who);
void nccl_check(const NcclApi& nccl, ncclResult_t r, const char* what, const char* who);

// NCCL from `explicit_path`, else LD_LIBRARY_PATH and the loader's cache, else pip wheels and the
// CUDA folders. Throws EnvironmentError listing what was tried.
NcclApi load_nccl(const std::string& explicit_path, const char* who);
// cuBLAS from the same places; on failure the handle is null and `why_not` says why.
CublasApi load_cublas(std::string& why_not, const char* who);

}  // namespace schedlab::calib::gpu
