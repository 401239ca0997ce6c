// GPU measurements for `schedlab calibrate`: CUDA runtime linked statically, NCCL and cuBLAS
// opened at run time with dlopen (calib/gpu/libraries.h).
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "calib/gpu/kernels.h"
#include "calib/gpu/libraries.h"
#include "calib/gpu_measure.h"
#include "util/error.h"

namespace schedlab::calib {
namespace {

using gpu::CublasApi;
using gpu::cublasHandle_t;
using gpu::kCublasCompute32F;
using gpu::kCublasGemmDefault;
using gpu::kCublasOpN;
using gpu::kCudaR16BF;
using gpu::kCudaR16F;
using gpu::kCudaR32F;
using gpu::kNcclFloat32;
using gpu::kNcclSum;
using gpu::ncclComm_t;
using gpu::NcclApi;

constexpr const char* kWho = "calibrate";

void cuda_check(cudaError_t e, const char* what) { gpu::cuda_check(e, what, kWho); }
void nccl_check(const NcclApi& nccl, gpu::ncclResult_t r, const char* what) { gpu::nccl_check(nccl, r, what, kWho); }
NcclApi load_nccl(const std::string& explicit_path) { return gpu::load_nccl(explicit_path, kWho); }
CublasApi load_cublas(std::string& why_not) { return gpu::load_cublas(why_not, kWho); }

// ---- small helpers ---------------------------------------------------------------------------

std::string version_string(int v) {  // 12040 -> "12.4"
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

std::string nccl_version_string(int code) {
  // NCCL_VERSION(X,Y,Z): X*1000+Y*100+Z up to 2.8, X*10000+Y*100+Z since 2.9.
  if (code >= 10000) return fmt::format("{}.{}.{}", code / 10000, (code % 10000) / 100, code % 100);
  return fmt::format("{}.{}.{}", code / 1000, (code % 1000) / 100, code % 100);
}

std::string driver_version() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  ..." or "... UNIX Open Kernel Module
  // for x86_64  580.159.04  Release Build ...": the first word of digits and dots after "Module".
  if (f && std::getline(f, line)) {
    std::istringstream words(line);
    std::string w;
    bool after_module = false;
    while (words >> w) {
      if (w == "Module") after_module = true;
      if (after_module && std::isdigit(static_cast<unsigned char>(w.front())) &&
          w.find_first_not_of("0123456789.") == std::string::npos && w.find('.') != std::string::npos)
        return w;
    }
  }
  int v = 0;
  if (cudaDriverGetVersion(&v) == cudaSuccess && v > 0) return "CUDA driver API " + version_string(v);
  return "";
}

std::string today_utc() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

// Frees what it holds on every exit path, exceptions included.
struct Cleanup {
  std::vector<std::function<void()>> actions;
  ~Cleanup() {
    for (auto it = actions.rbegin(); it != actions.rend(); ++it) (*it)();
  }
};

void say(const GpuMeasureOptions& o, const std::string& line) {
  if (o.progress) *o.progress << line << "\n" << std::flush;
}

double elapsed_us(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  cuda_check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
  return ms * 1000.0;
}

// ---- the measurements ------------------------------------------------------------------------

void measure_launch(const GpuMeasureOptions& o, GpuReport& rep) {
  cuda_check(cudaSetDevice(0), "cudaSetDevice");
  cudaStream_t s;
  cuda_check(cudaStreamCreate(&s), "cudaStreamCreate");
  Cleanup c;
  c.actions.push_back([s] { cudaStreamDestroy(s); });
  for (int i = 0; i < 100; ++i) cuda_check(gpu::launch_empty(s), "empty kernel launch");
  cuda_check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  const int n = 2000;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) cuda_check(gpu::launch_empty(s), "empty kernel launch");
  auto t1 = std::chrono::steady_clock::now();
  cuda_check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  double async_us = std::chrono::duration<double, std::micro>(t1 - t0).count() / n;
  const int m = 500;
  auto t2 = std::chrono::steady_clock::now();
  for (int i = 0; i < m; ++i) {
    cuda_check(gpu::launch_empty(s), "empty kernel launch");
    cuda_check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  }
  auto t3 = std::chrono::steady_clock::now();
  double sync_us = std::chrono::duration<double, std::micro>(t3 - t2).count() / m;
  perf::Measurement row;
  row.kind = "launch";
  row.time_us = sync_us;
  rep.measurements.push_back(row);
  say(o, fmt::format("kernel launch: {:.2f} us per asynchronous launch, {:.2f} us launch + synchronize", async_us,
                     sync_us));
}

void measure_copies(const GpuMeasureOptions& o, GpuReport& rep) {
  cuda_check(cudaSetDevice(0), "cudaSetDevice");
  size_t bytes = static_cast<size_t>(std::min(o.max_bytes, 256.0 * (1 << 20)));
  bytes = std::max<size_t>(bytes, 1 << 20);
  Cleanup c;
  void *a = nullptr, *b = nullptr, *h = nullptr;
  cuda_check(cudaMalloc(&a, bytes), "cudaMalloc");
  c.actions.push_back([a] { cudaFree(a); });
  cuda_check(cudaMalloc(&b, bytes), "cudaMalloc");
  c.actions.push_back([b] { cudaFree(b); });
  cuda_check(cudaMallocHost(&h, bytes), "cudaMallocHost");
  c.actions.push_back([h] { cudaFreeHost(h); });
  cudaStream_t s;
  cudaEvent_t e0, e1;
  cuda_check(cudaStreamCreate(&s), "cudaStreamCreate");
  c.actions.push_back([s] { cudaStreamDestroy(s); });
  cuda_check(cudaEventCreate(&e0), "cudaEventCreate");
  c.actions.push_back([e0] { cudaEventDestroy(e0); });
  cuda_check(cudaEventCreate(&e1), "cudaEventCreate");
  c.actions.push_back([e1] { cudaEventDestroy(e1); });
  cuda_check(cudaMemset(a, 1, bytes), "cudaMemset");
  struct Case {
    const char* kind;
    void* dst;
    const void* src;
    cudaMemcpyKind dir;
    double traffic;  // bytes moved per byte copied: read + write for device-to-device
  };
  const Case cases[] = {{"memcpy_d2d", b, a, cudaMemcpyDeviceToDevice, 2.0},
                        {"memcpy_h2d", a, h, cudaMemcpyHostToDevice, 1.0},
                        {"memcpy_d2h", h, a, cudaMemcpyDeviceToHost, 1.0}};
  for (const auto& k : cases) {
    for (int i = 0; i < std::max(1, o.warmup); ++i)
      cuda_check(cudaMemcpyAsync(k.dst, k.src, bytes, k.dir, s), "cudaMemcpyAsync");
    cuda_check(cudaEventRecord(e0, s), "cudaEventRecord");
    for (int i = 0; i < o.iters; ++i) cuda_check(cudaMemcpyAsync(k.dst, k.src, bytes, k.dir, s), "cudaMemcpyAsync");
    cuda_check(cudaEventRecord(e1, s), "cudaEventRecord");
    cuda_check(cudaEventSynchronize(e1), "cudaEventSynchronize");
    double us = elapsed_us(e0, e1) / o.iters;
    perf::Measurement row;
    row.kind = k.kind;
    row.bytes = static_cast<double>(bytes);
    row.time_us = us;
    row.algbw = bytes / 1e3 / us;
    row.busbw = row.algbw * k.traffic;
    rep.measurements.push_back(row);
    say(o, fmt::format("{}: {} bytes in {:.1f} us = {:.1f} GB/s{}", k.kind, bytes, us, row.algbw,
                       k.traffic > 1 ? fmt::format(" ({:.1f} GB/s read + write)", row.busbw) : ""));
  }
}

void measure_gemm(const GpuMeasureOptions& o, GpuReport& rep) {
  std::string why_not;
  CublasApi blas = load_cublas(why_not);
  if (!blas.handle) {
    say(o, "warning: " + why_not + "; the profile will have no compute figures");
    return;
  }
  cuda_check(cudaSetDevice(0), "cudaSetDevice");
  size_t free_b = 0, total_b = 0;
  cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  int n = 8192;  // 8192³ as in the figures of collectives.md
  while (n > 1024 && 3.0 * n * n * 4 > 0.5 * free_b) n /= 2;
  Cleanup c;
  cublasHandle_t handle = nullptr;
  if (blas.Create(&handle) != 0) {
    say(o, "warning: cublasCreate failed; the profile will have no compute figures");
    return;
  }
  c.actions.push_back([&blas, handle] { blas.Destroy(handle); });
  cudaStream_t s;
  cudaEvent_t e0, e1;
  cuda_check(cudaStreamCreate(&s), "cudaStreamCreate");
  c.actions.push_back([s] { cudaStreamDestroy(s); });
  cuda_check(cudaEventCreate(&e0), "cudaEventCreate");
  c.actions.push_back([e0] { cudaEventDestroy(e0); });
  cuda_check(cudaEventCreate(&e1), "cudaEventCreate");
  c.actions.push_back([e1] { cudaEventDestroy(e1); });
  blas.SetStream(handle, s);
  struct Case {
    perf::Dtype dtype;
    const char* kind;
    gpu::Element element;
    int cuda_type;
    size_t size;
  };
  const Case cases[] = {{perf::Dtype::fp32, "gemm_fp32", gpu::Element::f32, kCudaR32F, 4},
                        {perf::Dtype::fp16, "gemm_fp16", gpu::Element::f16, kCudaR16F, 2},
                        {perf::Dtype::bf16, "gemm_bf16", gpu::Element::bf16, kCudaR16BF, 2}};
  const size_t elems = static_cast<size_t>(n) * n;
  const float one = 1.0f, zero = 0.0f;
  for (const auto& k : cases) {
    Cleanup bufs;
    void* m[3] = {};
    for (auto& p : m) {
      cuda_check(cudaMalloc(&p, elems * k.size), "cudaMalloc");
      void* q = p;
      bufs.actions.push_back([q] { cudaFree(q); });
      cuda_check(gpu::fill_random(p, elems, k.element, s), "fill kernel");
    }
    auto gemm = [&] {
      return blas.GemmEx(handle, kCublasOpN, kCublasOpN, n, n, n, &one, m[0], k.cuda_type, n, m[1], k.cuda_type, n,
                         &zero, m[2], k.cuda_type, n, kCublasCompute32F, kCublasGemmDefault);
    };
    if (int st = gemm(); st != 0) {
      say(o, fmt::format("warning: cublasGemmEx ({}) failed with status {}; skipped", k.kind, st));
      continue;
    }
    for (int i = 0; i < 2; ++i) gemm();
    int iters = std::max(3, std::min(o.iters, 20));
    cuda_check(cudaEventRecord(e0, s), "cudaEventRecord");
    for (int i = 0; i < iters; ++i) gemm();
    cuda_check(cudaEventRecord(e1, s), "cudaEventRecord");
    cuda_check(cudaEventSynchronize(e1), "cudaEventSynchronize");
    double us = elapsed_us(e0, e1) / iters;
    double tflops = 2.0 * n * double(n) * n / (us * 1e-6) / 1e12;
    perf::Measurement row;
    row.kind = k.kind;
    row.bytes = static_cast<double>(elems * k.size);
    row.time_us = us;
    row.tflops = tflops;
    rep.measurements.push_back(row);
    rep.gemm_tflops[k.dtype] = std::stod(fmt::format("{:.4g}", tflops));
    say(o, fmt::format("{}: {}x{}x{} in {:.1f} us = {:.1f} TFLOP/s", k.kind, n, n, n, us, tflops));
  }
}

void measure_allreduce(const NcclApi& nccl, int ranks, const GpuMeasureOptions& o, GpuReport& rep) {
  std::vector<int> devs(ranks);
  for (int i = 0; i < ranks; ++i) devs[i] = i;
  std::vector<ncclComm_t> comms(ranks, nullptr);
  Cleanup c;
  nccl_check(nccl, nccl.CommInitAll(comms.data(), ranks, devs.data()), "ncclCommInitAll");
  c.actions.push_back([&nccl, comms] {
    for (auto cm : comms)
      if (cm) nccl.CommDestroy(cm);
  });
  const size_t max_bytes = std::max<size_t>(8, static_cast<size_t>(o.max_bytes));
  std::vector<void*> send(ranks), recv(ranks);
  std::vector<cudaStream_t> streams(ranks);
  std::vector<cudaEvent_t> start(ranks), stop(ranks);
  for (int i = 0; i < ranks; ++i) {
    cuda_check(cudaSetDevice(i), "cudaSetDevice");
    cuda_check(cudaMalloc(&send[i], max_bytes), "cudaMalloc");
    c.actions.push_back([i, p = send[i]] {
      cudaSetDevice(i);
      cudaFree(p);
    });
    cuda_check(cudaMalloc(&recv[i], max_bytes), "cudaMalloc");
    c.actions.push_back([i, p = recv[i]] {
      cudaSetDevice(i);
      cudaFree(p);
    });
    cuda_check(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking), "cudaStreamCreate");
    c.actions.push_back([i, st = streams[i]] {
      cudaSetDevice(i);
      cudaStreamDestroy(st);
    });
    cuda_check(cudaEventCreate(&start[i]), "cudaEventCreate");
    cuda_check(cudaEventCreate(&stop[i]), "cudaEventCreate");
    c.actions.push_back([i, a = start[i], b = stop[i]] {
      cudaSetDevice(i);
      cudaEventDestroy(a);
      cudaEventDestroy(b);
    });
    cuda_check(gpu::fill_random(send[i], max_bytes / 4, gpu::Element::f32, streams[i]), "fill kernel");
  }
  auto all_reduce = [&](size_t count, bool in_place) {
    nccl_check(nccl, nccl.GroupStart(), "ncclGroupStart");
    for (int i = 0; i < ranks; ++i)
      nccl_check(
          nccl,
          nccl.AllReduce(in_place ? recv[i] : send[i], recv[i], count, kNcclFloat32, kNcclSum, comms[i], streams[i]),
          "ncclAllReduce");
    nccl_check(nccl, nccl.GroupEnd(), "ncclGroupEnd");
  };
  auto sync_all = [&] {
    for (int i = 0; i < ranks; ++i) {
      cuda_check(cudaSetDevice(i), "cudaSetDevice");
      cuda_check(cudaStreamSynchronize(streams[i]), "cudaStreamSynchronize");
    }
  };
  for (size_t bytes = 8; bytes <= max_bytes; bytes *= 2) {
    size_t count = bytes / 4;
    double times[2] = {0, 0};
    for (int in_place = 0; in_place < 2; ++in_place) {
      for (int w = 0; w < o.warmup; ++w) all_reduce(count, in_place);
      sync_all();
      for (int i = 0; i < ranks; ++i) {
        cuda_check(cudaSetDevice(i), "cudaSetDevice");
        cuda_check(cudaEventRecord(start[i], streams[i]), "cudaEventRecord");
      }
      for (int it = 0; it < o.iters; ++it) all_reduce(count, in_place);
      for (int i = 0; i < ranks; ++i) {
        cuda_check(cudaSetDevice(i), "cudaSetDevice");
        cuda_check(cudaEventRecord(stop[i], streams[i]), "cudaEventRecord");
      }
      sync_all();
      double us = 0;  // the slowest rank sets the collective's time
      for (int i = 0; i < ranks; ++i) us = std::max(us, elapsed_us(start[i], stop[i]) / o.iters);
      times[in_place] = us;
      perf::Measurement row;
      row.kind = in_place ? "allreduce_inplace" : "allreduce";
      row.ranks = ranks;
      row.bytes = static_cast<double>(bytes);
      row.time_us = us;
      // One rank crosses no link: NCCL copies (out of place) or does nothing (in place, 0.2 µs for
      // 256 MiB on an H200, an "algbw" beyond any profile's range), so neither is a bandwidth.
      row.algbw = ranks > 1 && us > 0 ? bytes / 1e3 / us : 0.0;  // bytes / 1e9 / seconds
      row.busbw = ranks > 1 ? row.algbw * 2.0 * (ranks - 1) / ranks : 0.0;
      rep.measurements.push_back(row);
    }
    const auto& oop = rep.measurements[rep.measurements.size() - 2];
    const auto& ip = rep.measurements.back();
    say(o, fmt::format("{:>3} {:>12} {:>10.2f} {:>8.2f} {:>8.2f}   {:>10.2f} {:>8.2f} {:>8.2f}", ranks, bytes, times[0],
                       oop.algbw, oop.busbw, times[1], ip.algbw, ip.busbw));
  }
}

}  // namespace

bool gpu_measurement_built() { return true; }

GpuReport measure_local_gpus(const GpuMeasureOptions& o) {
  int ngpu = 0;
  if (cudaError_t e = cudaGetDeviceCount(&ngpu); e != cudaSuccess) {
    if (e == cudaErrorNoDevice)
      throw util::EnvironmentError("calibrate: no GPU found (CUDA reports no device; check CUDA_VISIBLE_DEVICES)");
    if (e == cudaErrorInsufficientDriver) {
      void* driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
      if (!driver)
        throw util::EnvironmentError(
            "calibrate: no NVIDIA driver on this machine (libcuda.so.1 not found), so no GPU to measure");
      ::dlclose(driver);
    }
    throw util::EnvironmentError(
        fmt::format("calibrate: no usable GPU: {} (cudaGetDeviceCount)", cudaGetErrorString(e)));
  }
  if (ngpu < 1) throw util::EnvironmentError("calibrate: no GPU found (cudaGetDeviceCount = 0)");

  GpuReport rep;
  rep.gpus = ngpu;
  cudaDeviceProp prop{};
  cuda_check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  rep.device_name = prop.name;
  for (int i = 1; i < ngpu; ++i) {
    cudaDeviceProp other{};
    if (cudaGetDeviceProperties(&other, i) == cudaSuccess && std::string(other.name) != prop.name)
      say(o, fmt::format("warning: GPU {} is a {}, GPU 0 a {}; the compute figures are GPU 0's", i, other.name,
                         prop.name));
  }
  rep.provenance.gpu = ngpu > 1 ? fmt::format("{} x{}", prop.name, ngpu) : std::string(prop.name);
  rep.provenance.host = host_name();
  rep.provenance.driver = driver_version();
  int rt = 0;
  cudaRuntimeGetVersion(&rt);
  rep.provenance.cuda = version_string(rt);
  rep.provenance.date = today_utc();

  NcclApi nccl = load_nccl(o.nccl_lib);
  int nv = 0;
  nccl_check(nccl, nccl.GetVersion(&nv), "ncclGetVersion");
  rep.provenance.nccl = nccl_version_string(nv);
  say(o, fmt::format("{} GPU(s): {}; driver {}, CUDA runtime {}, NCCL {} ({})", ngpu, prop.name, rep.provenance.driver,
                     rep.provenance.cuda, rep.provenance.nccl, nccl.path));

  measure_launch(o, rep);
  measure_copies(o, rep);
  measure_gemm(o, rep);
  say(o, "allreduce (float, sum), times in us, bandwidths in GB/s:");
  say(o, fmt::format("{:>3} {:>12} {:>10} {:>8} {:>8}   {:>10} {:>8} {:>8}", "n", "bytes", "oop_time", "algbw", "busbw",
                     "ip_time", "algbw", "busbw"));
  std::vector<int> rank_counts;
  for (int k = 1; k < ngpu; k *= 2) rank_counts.push_back(k);
  rank_counts.push_back(ngpu);
  for (int k : rank_counts) measure_allreduce(nccl, k, o, rep);
  return rep;
}

}  // namespace schedlab::calib
