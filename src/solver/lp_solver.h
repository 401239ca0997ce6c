// Solves a LinearProgram with GLPK's simplex method, or one with integer variables with GLPK's
// branch and bound (solve_mip), with GLPK's terminal output off and no time limit (same model,
// same answer, every run: a MIP is bounded by a count of subproblems, never by the clock). An
// LpSolver owns one GLPK problem object (RAII) and keeps its basis between solves, so that a
// caller who changes bounds or the objective and solves again starts from the last optimal
// basis (a warm start: the bisection of finish-time fairness, the second stage of max-min
// fairness).
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "solver/linear_program.h"

struct glp_prob;  // glpk.h: kept out of this header so that callers need not see GLPK

namespace schedlab::solver {

enum class Method {
  primal,  // primal simplex (GLPK's default)
  dual,    // dual simplex, primal when the basis is not dual feasible (GLPK's GLP_DUALP)
};

struct SolveOptions {
  Method method = Method::primal;
  // GLPK's LP presolver: only for a first solve, it discards the basis a warm start needs.
  bool presolve = false;
  // Fill LpResult::row_duals (a crash basis reads a program's shadow prices; most callers need
  // only the solution).
  bool duals = false;
};

// Branch and bound's bounds, both deterministic (GLPK's own tm_lim is wall-clock time, so the
// answer would depend on the machine's load: never used).
struct MipOptions {
  // Subproblems selected after the root before the search stops with its best whole solution
  // (LpStatus::feasible; none found: failed). 0: no limit.
  std::uint64_t node_limit = 0;
  // Relative gap between the best whole solution and the best bound at which the search ends
  // (GLPK's mip_gap), its solution then reported optimal. 0: proven optimal.
  double gap = 0;
};

class LpSolver {
 public:
  // Throws std::invalid_argument on a malformed model (a row naming a variable that does not
  // exist, a bound or coefficient that is NaN, lower above upper): models are built by code,
  // so that is a bug of the caller, reported before GLPK, which would abort on it.
  explicit LpSolver(const LinearProgram& lp);
  ~LpSolver();
  LpSolver(const LpSolver&) = delete;
  LpSolver& operator=(const LpSolver&) = delete;
  LpSolver(LpSolver&&) noexcept;
  LpSolver& operator=(LpSolver&&) noexcept;

  LpResult solve(const SolveOptions& options = {});
  // The variables marked integer take whole values: the LP relaxation by the simplex method
  // (`lp`), then GLPK's branch and bound from it, within `mip`'s bounds. Optimal, feasible
  // (stopped at the node limit), infeasible, or failed; an unbounded relaxation: unbounded.
  LpResult solve_mip(const MipOptions& mip, const SolveOptions& lp = {});

  // Changes to the model that keep the current basis for the next solve.
  void set_row_bounds(std::size_t row, double lower, double upper);
  void set_variable_bounds(std::size_t variable, double lower, double upper);
  void set_objective(std::size_t variable, double coefficient);
  // Replaces a variable's coefficients in every row (the basis is kept; the solve refactors).
  void set_column(std::size_t variable, const std::vector<std::pair<std::size_t, double>>& row_coefficients);
  void set_sense(Sense sense);
  // A starting basis for the next solve (a crash, e.g. a greedy solution): `basic_variables`
  // basic, every other variable at its lower bound; the rows in `tight_rows` at their bound
  // (the upper one where a row has two; GLPK reads it so), every other row basic. A basis needs as many of one as of the other (else
  // std::invalid_argument); one that is singular is replaced by the standard basis at solve.
  void set_basis(const std::vector<std::size_t>& basic_variables, const std::vector<std::size_t>& tight_rows);

  std::size_t variables() const { return variables_; }
  std::size_t rows() const { return rows_; }

 private:
  struct Free {
    void operator()(glp_prob* p) const;
  };
  std::unique_ptr<glp_prob, Free> prob_;
  std::size_t variables_ = 0;
  std::size_t rows_ = 0;
};

// One cold solve of `lp`.
LpResult solve(const LinearProgram& lp, const SolveOptions& options = {});

}  // namespace schedlab::solver
