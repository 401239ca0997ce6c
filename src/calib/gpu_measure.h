// Measurements on the local GPUs for `schedlab calibrate` (NCCL allreduce, launch latency, copy
// bandwidths, cuBLAS GEMM), and the profile built from them. The measuring half is compiled
// only with the CUDA toolkit (src/calib/gpu/); without it measure_local_gpus throws.
#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "perf/calibration_profile.h"

namespace schedlab::calib {

struct AlphaBetaFit;

struct GpuMeasureOptions {
  std::string nccl_lib;              // explicit libnccl.so.2 path; empty: search (docs/calibration.md)
  double max_bytes = 1 << 30;        // largest allreduce size per rank
  int iters = 20;                    // timed iterations per size (nccl-tests' default)
  int warmup = 5;                    // untimed iterations before them
  std::ostream* progress = nullptr;  // one line per step, or nothing
};

struct GpuReport {
  perf::Provenance provenance;  // host, gpu, driver, cuda, nccl, date (source and command: caller)
  std::string device_name;      // GPU 0's name, "NVIDIA H100 80GB HBM3"
  int gpus = 0;
  // allreduce / allreduce_inplace rows (tier left empty), launch, memcpy_* and gemm_* rows.
  std::vector<perf::Measurement> measurements;
  std::map<perf::Dtype, double> gemm_tflops;
};

// True when this binary was built with the CUDA toolkit.
bool gpu_measurement_built();

// Throws EnvironmentError (one line) when there is no CUDA build, no driver, no GPU or no NCCL.
// Options are taken as valid (the caller checks them). Calls nothing outside src/calib/gpu/ and
// header-only code, so that the GPU library needs nothing from schedlab_core.
GpuReport measure_local_gpus(const GpuMeasureOptions& options);

// The profile for a report: compute from the GEMM rows; `tier` fitted from the allreduce rows with
// 2 or more ranks (left out, with `fit` untouched, when there was only one GPU).
perf::CalibrationProfile profile_from_gpu_report(const GpuReport& report, perf::LinkTier tier,
                                                 const std::string& command, AlphaBetaFit* fit);

}  // namespace schedlab::calib
