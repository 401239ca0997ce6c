// Variables and fit rows shared by Gavel's programs.
#include "sched/gavel/lp_terms.h"

#include <algorithm>

namespace schedlab::sched::gavel {

AllocationVariables add_allocation(const ThroughputMatrix& m, solver::LinearProgram& lp,
                                   const std::vector<int>& copies) {
  const std::size_t types = m.types.size();
  AllocationVariables v;
  v.index.assign(m.jobs.size() * types, AllocationVariables::kNone);
  std::vector<std::vector<solver::Term>> per_type(types);
  for (std::size_t i = 0; i < m.jobs.size(); ++i) {
    const GavelJob& j = m.jobs[i];
    std::vector<solver::Term> row;
    for (std::size_t k = 0; k < types; ++k) {
      if (j.throughput[k] <= 0 || m.types[k].count < j.scale_factor) continue;
      const std::size_t var = lp.add_variable(0, 1, 0);
      v.index[i * types + k] = var;
      row.push_back({var, 1});
      const double gpus = static_cast<double>(j.scale_factor) * (copies.empty() ? 1 : copies[i]);
      per_type[k].push_back({var, gpus});
    }
    v.fit_row.push_back(lp.add_row(std::move(row), -solver::kInfinity, 1));
  }
  for (std::size_t k = 0; k < types; ++k)
    v.type_row.push_back(lp.add_row(std::move(per_type[k]), -solver::kInfinity, static_cast<double>(m.types[k].count)));
  return v;
}

Allocation read_allocation(const ThroughputMatrix& m, const AllocationVariables& v, const std::vector<double>& x) {
  const std::size_t types = m.types.size();
  Allocation a(m.jobs.size(), types);
  for (std::size_t i = 0; i < m.jobs.size(); ++i)
    for (std::size_t k = 0; k < types; ++k) {
      const std::size_t var = v.index[i * types + k];
      if (var != AllocationVariables::kNone) a.at(i, k) = std::clamp(x[var], 0.0, 1.0);
    }
  return a;
}

}  // namespace schedlab::sched::gavel
