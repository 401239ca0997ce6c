// Finish-time fairness by bisection on rho. With E[i] = isolated_time_so_far[i] +
// remaining[i] / isolated_throughput[i] (the job's finish time in isolation), rho[i] <= rho
// holds exactly when throughput[i](X) >= remaining[i] / (rho E[i] - elapsed[i]) (and
// rho E[i] > elapsed[i]): for a fixed rho the question "can every job be at or below rho" is
// one linear feasibility program, and the answer is monotone in rho. Each step changes only
// the rows' lower bounds, so the dual simplex starts from the previous step's basis.
#include "sched/gavel/finish_time_fairness.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "sched/gavel/lp_terms.h"
#include "solver/lp_solver.h"

namespace schedlab::sched::gavel {
namespace {

// The last program keeps each job's throughput this far (relative) below what the best rho
// asks, so that solver tolerances cannot make it infeasible.
constexpr double kKeepRatio = 1e-7;

double worst_ratio(const ThroughputMatrix& m, const Allocation& x, const std::vector<double>& isolated) {
  double worst = 0;
  for (std::size_t i = 0; i < m.jobs.size(); ++i) worst = std::max(worst, finish_time_ratio(m, x, i, isolated[i]));
  return worst;
}

[[noreturn]] void solve_failed(const solver::LpResult& r) {
  throw std::runtime_error(std::string("finish-time fairness: a program ended ") + solver::to_string(r.status) +
                           (r.detail.empty() ? "" : " (" + r.detail + ")"));
}

}  // namespace

double finish_time_ratio(const ThroughputMatrix& m, const Allocation& x, std::size_t job, double isolated_throughput) {
  const GavelJob& j = m.jobs[job];
  const double throughput = x.effective_throughput(m, job);
  if (throughput <= 0) return std::numeric_limits<double>::infinity();
  return (j.elapsed_s + j.remaining_work / throughput) /
         (j.isolated_time_so_far_s + j.remaining_work / isolated_throughput);
}

FinishTimeResult finish_time_fairness(const ThroughputMatrix& m, const FinishTimeOptions& options) {
  check_matrix(m, true);
  FinishTimeResult out;
  const std::size_t n = m.jobs.size(), types = m.types.size();
  if (n == 0) {
    out.allocation = Allocation(0, types);
    return out;
  }
  const std::vector<double> isolated = isolated_throughputs(m);
  solver::LinearProgram lp(solver::Sense::maximize);
  const AllocationVariables vars = add_allocation(m, lp);
  const std::size_t first_job_row = lp.rows().size();
  std::vector<double> isolated_finish(n), best(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const GavelJob& j = m.jobs[i];
    isolated_finish[i] = j.isolated_time_so_far_s + j.remaining_work / isolated[i];
    std::vector<solver::Term> row;
    for (std::size_t k = 0; k < types; ++k) {
      const std::size_t var = vars.index[i * types + k];
      if (var == AllocationVariables::kNone) continue;
      row.push_back({var, j.throughput[k]});
      best[i] = std::max(best[i], j.throughput[k]);
    }
    lp.add_row(std::move(row), 0, solver::kInfinity);
  }
  // The bracket. Below: no job can beat its ratio on its fastest type for all of its time.
  // Above: the isolated share restricted to the types a job may use (it fits: each type's
  // GPUs are split n ways) is feasible, and so is its worst ratio.
  double lower = 0;
  for (std::size_t i = 0; i < n; ++i)
    lower = std::max(lower, (m.jobs[i].elapsed_s + m.jobs[i].remaining_work / best[i]) / isolated_finish[i]);
  Allocation start = isolated_allocation(m);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < types; ++k)
      if (vars.index[i * types + k] == AllocationVariables::kNone) start.at(i, k) = 0;
  Allocation best_found = start;
  double upper = worst_ratio(m, start, isolated);

  solver::LpSolver s(lp);
  auto require = [&](double rho) {
    for (std::size_t i = 0; i < n; ++i) {
      const GavelJob& j = m.jobs[i];
      s.set_row_bounds(first_job_row + i, j.remaining_work / (rho * isolated_finish[i] - j.elapsed_s),
                       solver::kInfinity);
    }
  };
  // Try the lower bound first (it is reached when jobs do not compete), then bisect; a
  // feasible step also lowers the bracket's top to the ratio its allocation reaches.
  double rho = lower;
  while (upper - lower > options.tolerance * upper) {
    require(rho);
    const solver::LpResult r = s.solve(solver::SolveOptions{solver::Method::dual, false});
    ++out.lp_solves;
    if (r.status == solver::LpStatus::optimal) {
      best_found = read_allocation(m, vars, r.x);
      upper = std::min(rho, worst_ratio(m, best_found, isolated));
      if (rho == lower) break;  // the lower bound itself is reached: optimal
    } else if (r.status == solver::LpStatus::infeasible) {
      lower = rho;
    } else {
      solve_failed(r);
    }
    rho = (lower + upper) / 2;
    if (rho <= lower || rho >= upper) break;  // the bracket is as narrow as doubles go
  }
  if (options.fill_leftover) {
    for (std::size_t i = 0; i < n; ++i) {
      const double need = m.jobs[i].remaining_work / (upper * isolated_finish[i] - m.jobs[i].elapsed_s);
      s.set_row_bounds(first_job_row + i, need * (1 - kKeepRatio), solver::kInfinity);
      for (std::size_t k = 0; k < types; ++k) {
        const std::size_t var = vars.index[i * types + k];
        if (var != AllocationVariables::kNone) s.set_objective(var, m.jobs[i].throughput[k] / isolated[i]);
      }
    }
    const solver::LpResult r = s.solve();
    ++out.lp_solves;
    if (r.status != solver::LpStatus::optimal) solve_failed(r);
    best_found = read_allocation(m, vars, r.x);
  }
  out.max_ratio = worst_ratio(m, best_found, isolated);
  out.allocation = std::move(best_found);
  return out;
}

}  // namespace schedlab::sched::gavel
