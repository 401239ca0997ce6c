// Finish-time fairness by a fixed-point iteration on rho over one linear program. With
// E[i] = isolated_time_so_far[i] + remaining[i] / isolated_throughput[i] (the job's finish
// time in isolation), rho[i] <= rho holds exactly when throughput[i](X) >= need[i](rho) =
// remaining[i] / (rho E[i] - elapsed[i]) (and rho E[i] > elapsed[i]). For a fixed rho the
// program "maximise lambda with throughput[i](X) >= lambda need[i](rho) for every job" is a
// max-min program; its allocation reaches rho' = max_i rho[i](X) <= rho whenever lambda >= 1,
// with equality only at the optimum. Starting from a feasible rho (the isolated share's), the
// sequence rho, rho', rho'', ... falls to the optimum (in one step when no job has waited:
// then need[i] is proportional to 1 / rho), safeguarded by bisection (below); each step
// changes one column and the rows' bounds, and starts from the previous step's basis.
#include "sched/gavel/finish_time_fairness.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "sched/gavel/finish_time_crash.h"
#include "sched/gavel/finish_time_iteration.h"
#include "solver/lp_solver.h"

namespace schedlab::sched::gavel {
namespace {

// The last program keeps lambda this far below 1, so that solver tolerances cannot make it
// infeasible.
constexpr double kKeepRatio = 1e-6;
// A guard: the iteration converges in a few steps; this many is a bug, not an input.
constexpr int kMaxSteps = 200;

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

FinishTimeResult iterate_finish_time(const ThroughputMatrix& m, const FinishTimeOptions& options,
                                     const FinishTimeProgramView& p) {
  FinishTimeResult out;
  const std::size_t n = m.jobs.size(), types = m.types.size();
  const std::vector<double> isolated = isolated_throughputs(m);
  std::vector<double> isolated_finish(n), best(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const GavelJob& j = m.jobs[i];
    isolated_finish[i] = j.isolated_time_so_far_s + j.remaining_work / isolated[i];
    for (std::size_t k = 0; k < types; ++k)
      if (j.throughput[k] > 0 && m.types[k].count >= j.scale_factor) best[i] = std::max(best[i], j.throughput[k]);
  }
  // The start: the isolated share restricted to the types a job may use fits (each type's
  // GPUs are split n ways) and every job gets throughput from it, so its worst ratio is a
  // feasible rho.
  Allocation start = isolated_allocation(m);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < types; ++k)
      if (m.jobs[i].throughput[k] <= 0 || m.types[k].count < m.jobs[i].scale_factor) start.at(i, k) = 0;
  double rho = worst_ratio(m, start, isolated);
  Allocation best_found = start;

  solver::LpSolver& s = p.s;
  std::vector<std::pair<std::size_t, double>> column(n);
  std::vector<double> need(n);
  // Sets the program up for `at` and returns L.
  auto aim = [&](double at) {
    double cap = solver::kInfinity;
    for (std::size_t i = 0; i < n; ++i) {
      need[i] = m.jobs[i].remaining_work / (at * isolated_finish[i] - m.jobs[i].elapsed_s);
      cap = std::min(cap, best[i] / need[i]);
      column[i] = {p.job_row[i], need[i]};
    }
    s.set_column(p.s_var, column);
    for (std::size_t i = 0; i < n; ++i) s.set_row_bounds(p.job_row[i], cap * need[i], solver::kInfinity);
    return cap;
  };
  // A bracket keeps the iteration safe: when a job that has waited long sets the ratio, the
  // fixed-point steps can shrink to slivers (rho' = rho / lambda + elapsed / E (1 - 1 / lambda)
  // with lambda near 1), so a step that gains less than a quarter of the bracket is followed
  // by a bisection step. lambda < 1 at rho proves rho infeasible: the bracket's bottom.
  double lower = 0;
  for (std::size_t i = 0; i < n; ++i)
    lower = std::max(lower, (m.jobs[i].elapsed_s + m.jobs[i].remaining_work / best[i]) / isolated_finish[i]);
  double upper = rho;
  for (int step = 0; upper - lower > options.tolerance * upper; ++step) {
    if (step == kMaxSteps) throw std::runtime_error("finish-time fairness: the iteration did not converge");
    const double cap = aim(rho);
    if (step == 0 && p.cold && options.crash) crash_finish_time(m, p, need, best, cap);
    s.set_variable_bounds(p.s_var, 0, cap);
    const solver::LpResult r = s.solve(solver::SolveOptions{solver::Method::dual, false});
    ++out.lp_solves;
    out.pivots += r.pivots;
    if (r.status != solver::LpStatus::optimal) solve_failed(r);
    const double lambda = cap - r.objective;
    const double before = upper;
    if (lambda < 1 - kKeepRatio) {
      lower = std::max(lower, rho);
    } else {
      Allocation x = read_allocation(m, p.vars, r.x);
      const double reached = worst_ratio(m, x, isolated);
      if (reached < upper) {
        upper = reached;
        best_found = std::move(x);
      }
      if (lambda <= 1 + kKeepRatio) lower = std::max(lower, std::min(rho, upper));  // rho is optimal
    }
    const bool good_step = before - upper >= 0.25 * (before - lower);
    rho = good_step ? upper : (lower + upper) / 2;
    if (rho <= lower) break;  // the bracket is as narrow as doubles go
  }
  if (options.fill_leftover) {
    // lambda held at 1 (every job at or below rho), the objective the sum of throughput /
    // isolated throughput.
    const double cap = aim(upper);
    s.set_variable_bounds(p.s_var, 0, std::max(0.0, cap - (1 - kKeepRatio)));
    s.set_sense(solver::Sense::maximize);
    s.set_objective(p.s_var, 0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < types; ++k) {
        const std::size_t var = p.vars.index[i * types + k];
        if (var != AllocationVariables::kNone) s.set_objective(var, m.jobs[i].throughput[k] / isolated[i]);
      }
    const solver::LpResult r = s.solve();
    ++out.lp_solves;
    out.pivots += r.pivots;
    if (r.status != solver::LpStatus::optimal) solve_failed(r);
    best_found = read_allocation(m, p.vars, r.x);
    // Back to the iteration's program, for a caller who keeps it.
    s.set_sense(solver::Sense::minimize);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < types; ++k)
        if (const std::size_t var = p.vars.index[i * types + k]; var != AllocationVariables::kNone)
          s.set_objective(var, 0);
    s.set_objective(p.s_var, 1);
  }
  out.max_ratio = worst_ratio(m, best_found, isolated);
  out.allocation = std::move(best_found);
  return out;
}

FinishTimeResult finish_time_fairness(const ThroughputMatrix& m, const FinishTimeOptions& options) {
  check_matrix(m, true);
  const std::size_t n = m.jobs.size(), types = m.types.size();
  if (n == 0) return FinishTimeResult{Allocation(0, types), 0, 0};
  // lambda is written L - s with s in [0, L], L = the least over jobs of best / need (no job
  // can be above it): minimising s from the all-slack basis starts dual feasible, as in
  // max_min_fairness.cpp. Rows: throughput[i](X) + need[i] s >= L need[i].
  solver::LinearProgram lp(solver::Sense::minimize);
  const AllocationVariables vars = add_allocation(m, lp);
  std::vector<std::size_t> job_row(n);
  const std::size_t s_var = lp.add_variable(0, 0, 1);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<solver::Term> row;
    for (std::size_t k = 0; k < types; ++k) {
      const std::size_t var = vars.index[i * types + k];
      if (var != AllocationVariables::kNone) row.push_back({var, m.jobs[i].throughput[k]});
    }
    job_row[i] = lp.add_row(std::move(row), 0, solver::kInfinity);
  }
  solver::LpSolver s(lp);
  return iterate_finish_time(m, options, FinishTimeProgramView{s, vars, job_row, s_var, true});
}

}  // namespace schedlab::sched::gavel
