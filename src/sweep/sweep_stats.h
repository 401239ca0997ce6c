// Figures over a grid point's seeds: mean, sample standard deviation and the 95% confidence
// interval of the mean from Student's t distribution (n - 1 degrees of freedom), as a paper
// reports a simulator's results over seeds.
#pragma once

#include <cstddef>
#include <vector>

namespace schedlab::sweep {

struct SeedStats {
  std::size_t n = 0;
  double mean = 0;
  double sd = 0;       // sample standard deviation (n - 1); 0 for one value
  double ci95 = 0;     // half-width: the interval is mean +/- ci95; 0 for one value
};

// The two-sided 95% quantile of Student's t with `dof` degrees of freedom (dof >= 1).
double t_quantile_95(std::size_t dof);

SeedStats seed_stats(const std::vector<double>& values);

}  // namespace schedlab::sweep
