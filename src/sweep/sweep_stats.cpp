// t quantiles: exact to three decimals from tables for 1-30 degrees of freedom; above, the
// Cornish-Fisher expansion around the normal quantile (error below 1e-4 from 30 on).
#include "sweep/sweep_stats.h"

#include <array>
#include <cmath>

namespace schedlab::sweep {

double t_quantile_95(std::size_t dof) {
  static constexpr std::array<double, 30> kTable = {
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
      2.120,  2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof == 0) return 0;
  if (dof <= kTable.size()) return kTable[dof - 1];
  const double z = 1.959964;
  const double v = static_cast<double>(dof);
  return z + (z * z * z + z) / (4 * v) + (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * v * v);
}

SeedStats seed_stats(const std::vector<double>& values) {
  SeedStats s;
  s.n = values.size();
  if (s.n == 0) return s;
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(s.n);
  if (s.n < 2) return s;
  double sq = 0;
  for (double v : values) sq += (v - s.mean) * (v - s.mean);
  s.sd = std::sqrt(sq / static_cast<double>(s.n - 1));
  s.ci95 = t_quantile_95(s.n - 1) * s.sd / std::sqrt(static_cast<double>(s.n));
  return s;
}

}  // namespace schedlab::sweep
