// The always-built half of GPU calibration: the profile from a measurement report, and the
// stand-in for measure_local_gpus in builds without CUDA.
#include "calib/gpu_measure.h"

#include "calib/alpha_beta_fit.h"
#include "util/error.h"

namespace schedlab::calib {

#ifndef SCHEDLAB_HAVE_CUDA
bool gpu_measurement_built() { return false; }

GpuReport measure_local_gpus(const GpuMeasureOptions&) {
  throw util::EnvironmentError(
      "calibrate: this schedlab was built without CUDA, so it cannot measure GPUs; rebuild with the CUDA toolkit "
      "(-DSCHEDLAB_CUDA=ON) or import nccl-tests output with --from-nccl-tests LOG --tier TIER");
}
#endif

perf::CalibrationProfile profile_from_gpu_report(const GpuReport& report, perf::LinkTier tier,
                                                 const std::string& command, AlphaBetaFit* fit) {
  perf::CalibrationProfile p;
  p.provenance = report.provenance;
  p.provenance.source = "measured";
  p.provenance.command = command;
  if (!report.gemm_tflops.empty()) p.compute[perf::gpu_model_from_device_name(report.device_name)] = report.gemm_tflops;
  std::vector<FitSample> samples;
  std::string tier_name(perf::link_tier_name(tier));
  for (perf::Measurement m : report.measurements) {
    if (m.kind == "allreduce" || m.kind == "allreduce_inplace") {
      if (m.ranks >= 2) {
        m.tier = tier_name;
        samples.push_back({m.ranks, m.bytes, m.time_us});
      }
    }
    p.measurements.push_back(m);
  }
  if (!samples.empty()) p.tiers[tier] = fit_tier(samples, fit);
  return p;
}

}  // namespace schedlab::calib
