// Max-min fairness as a linear program: variables X[i][t] and z; maximise z subject to the
// fit rows (lp_terms.h) and, per job, sum_t c[i][t] X[i][t] >= z with
// c[i][t] = throughput[i][t] x scale_factor[i] / (weight[i] x proportional_throughput[i]).
// Identical jobs share one row (MaxMinOptions::group_identical_jobs).
#include "sched/gavel/max_min_fairness.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>

#include "sched/gavel/lp_terms.h"
#include "solver/lp_solver.h"

namespace schedlab::sched::gavel {
namespace {

// The least share may fall this far (relative) below its optimum in the second program: the
// solver's tolerances must not make "keep everyone at the optimum" infeasible.
constexpr double kKeepLeast = 1e-7;

void require_optimal(const solver::LpResult& r, const char* stage) {
  if (r.status != solver::LpStatus::optimal)
    throw std::runtime_error(std::string("max-min fairness: the ") + stage + " program ended " +
                             solver::to_string(r.status) + (r.detail.empty() ? "" : " (" + r.detail + ")"));
}

// The program's rows: one per class of identical jobs (or per job), in order of first job.
struct Classes {
  ThroughputMatrix rows;
  std::vector<int> copies;              // jobs per row
  std::vector<std::size_t> row_of_job;  // per job
};

Classes group(const ThroughputMatrix& m, bool identical_together) {
  Classes c;
  c.rows.types = m.types;
  c.row_of_job.reserve(m.jobs.size());
  using Key = std::tuple<std::vector<double>, int, double>;
  std::map<Key, std::size_t> seen;
  for (const GavelJob& j : m.jobs) {
    if (identical_together) {
      const auto [it, added] = seen.try_emplace(Key{j.throughput, j.scale_factor, j.weight}, c.rows.jobs.size());
      if (!added) {
        ++c.copies[it->second];
        c.row_of_job.push_back(it->second);
        continue;
      }
    }
    c.row_of_job.push_back(c.rows.jobs.size());
    c.rows.jobs.push_back(j);
    c.copies.push_back(1);
  }
  return c;
}

}  // namespace

MaxMinResult max_min_fairness(const ThroughputMatrix& m, const MaxMinOptions& options) {
  check_matrix(m, false);
  MaxMinResult out;
  const std::size_t types = m.types.size();
  out.allocation = Allocation(m.jobs.size(), types);
  if (m.jobs.empty()) return out;
  // The proportional throughput depends on the job's row and the GPU counts only, so a class
  // shares it too.
  const Classes classes = group(m, options.group_identical_jobs);
  const ThroughputMatrix& rows = classes.rows;
  const std::vector<double> proportional = proportional_throughputs(rows);
  // z is written U - s with s in [0, U], U = the least over rows of its best coefficient (no
  // job can be above it): minimising s from the all-slack basis (x = 0, s = 0) starts dual
  // feasible, so the dual simplex solves it without the long run of degenerate primal pivots
  // that maximising z from z = 0 takes.
  std::vector<std::vector<double>> coefficient(rows.jobs.size(), std::vector<double>(types, 0.0));
  double bound = solver::kInfinity;
  for (std::size_t i = 0; i < rows.jobs.size(); ++i) {
    const GavelJob& j = rows.jobs[i];
    double best = 0;
    for (std::size_t k = 0; k < types; ++k)
      if (j.throughput[k] > 0 && m.types[k].count >= j.scale_factor) {
        coefficient[i][k] = j.throughput[k] * j.scale_factor / (j.weight * proportional[i]);
        best = std::max(best, coefficient[i][k]);
      }
    bound = std::min(bound, best);
  }
  solver::LinearProgram lp(solver::Sense::minimize);
  const AllocationVariables vars = add_allocation(rows, lp, classes.copies);
  const std::size_t s_var = lp.add_variable(0, bound, 1);
  for (std::size_t i = 0; i < rows.jobs.size(); ++i) {
    std::vector<solver::Term> row{{s_var, 1}};
    for (std::size_t k = 0; k < types; ++k) {
      const std::size_t var = vars.index[i * types + k];
      if (var != AllocationVariables::kNone) row.push_back({var, coefficient[i][k]});
    }
    lp.add_row(std::move(row), bound, solver::kInfinity);
  }
  solver::LpSolver s(lp);
  const solver::LpResult first = s.solve(solver::SolveOptions{solver::Method::dual, false});
  require_optimal(first, "first");
  out.min_normalised_throughput = bound - first.objective;
  solver::LpResult final_result = first;
  if (options.fill_leftover) {
    // Second program from the first one's basis: s held at its optimum (every job keeps the
    // least share), the objective the sum of every job's normalised throughput.
    s.set_variable_bounds(s_var, 0, first.objective + kKeepLeast * out.min_normalised_throughput);
    s.set_sense(solver::Sense::maximize);
    s.set_objective(s_var, 0);
    for (std::size_t i = 0; i < rows.jobs.size(); ++i)
      for (std::size_t k = 0; k < types; ++k) {
        const std::size_t var = vars.index[i * types + k];
        if (var != AllocationVariables::kNone) s.set_objective(var, coefficient[i][k] * classes.copies[i]);
      }
    final_result = s.solve();
    require_optimal(final_result, "second");
  }
  const Allocation per_row = read_allocation(rows, vars, final_result.x);
  for (std::size_t i = 0; i < m.jobs.size(); ++i)
    for (std::size_t k = 0; k < types; ++k) out.allocation.at(i, k) = per_row.at(classes.row_of_job[i], k);
  return out;
}

}  // namespace schedlab::sched::gavel
