// Pollux's goodput: throughput x statistical efficiency, and the batch that maximises it.
#include "perf/goodput.h"

#include <algorithm>
#include <cmath>

namespace schedlab::perf {

double StatisticalEfficiency::noise_scale(double progress) const {
  if (noise.empty()) return 0;
  if (progress <= noise.front().first) return noise.front().second;
  if (progress >= noise.back().first) return noise.back().second;
  auto hi = std::upper_bound(noise.begin(), noise.end(), progress,
                             [](double p, const std::pair<double, double>& pt) { return p < pt.first; });
  auto lo = hi - 1;
  const double f = (progress - lo->first) / (hi->first - lo->first);
  return lo->second + f * (hi->second - lo->second);
}

double StatisticalEfficiency::efficiency(double progress, double batch) const {
  if (!given() || batch <= init_batch) return 1;
  const double phi = noise_scale(progress);
  return (phi + init_batch) / (phi + batch);
}

GoodputPoint goodput_at(const StepCost& step, double batch, const StatisticalEfficiency& eff, double progress) {
  GoodputPoint p;
  p.gpus = step.gpus;
  p.batch = batch;
  const double compute_us = batch / step.gpus / step.per_gpu_samples_per_s * 1e6;
  const double hidden = std::min(step.comm_us, std::clamp(step.overlap, 0.0, 1.0) * compute_us);
  p.iteration_us = compute_us + step.comm_us - hidden;
  p.throughput = batch / (p.iteration_us * 1e-6);
  p.efficiency = eff.efficiency(progress, batch);
  p.goodput = p.throughput * p.efficiency;
  return p;
}

GoodputPoint best_goodput(const StepCost& step, const StatisticalEfficiency& eff, double progress,
                          double fixed_local_batch) {
  const double n = step.gpus;
  if (!eff.given()) return goodput_at(step, fixed_local_batch * n, eff, progress);
  // Whole samples per GPU, at least one each.
  const double lo_local = std::max(1.0, std::ceil(eff.init_batch / n));
  const double hi_local = std::max(lo_local, std::floor(eff.max_batch / n));
  const double a = 1e6 / (n * step.per_gpu_samples_per_s);  // compute us per sample of the batch
  const double o = std::clamp(step.overlap, 0.0, 1.0);
  const double c = step.comm_us;
  const double phi = eff.noise_scale(progress);
  std::vector<double> local = {lo_local, hi_local};
  auto add = [&](double total) {
    if (!(total > 0) || !std::isfinite(total)) return;
    const double l = std::clamp(total / n, lo_local, hi_local);
    local.push_back(std::floor(l));
    local.push_back(std::ceil(l));
  };
  if (c > 0 && o < 1) add(std::sqrt(c * phi / (a * (1 - o))));  // the interior optimum
  if (c > 0 && o > 0) add(c / (o * a));                            // where compute starts hiding all of c
  GoodputPoint best;
  for (double l : local) {
    l = std::clamp(l, lo_local, hi_local);
    const GoodputPoint p = goodput_at(step, l * n, eff, progress);
    // Ties go to the smaller batch (deterministic; a smaller batch generalises no worse).
    if (p.goodput > best.goodput || (p.goodput == best.goodput && p.batch < best.batch) || best.gpus == 0) best = p;
  }
  return best;
}

}  // namespace schedlab::perf
