// Solves a LinearProgram with GLPK's simplex method, with GLPK's terminal output off and no
// time limit (same model, same answer, every run). An LpSolver owns one GLPK problem object
// (RAII) and keeps its basis between solves, so that a caller who changes bounds or the
// objective and solves again starts from the last optimal basis (a warm start: the bisection
// of finish-time fairness, the second stage of max-min fairness).
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

  // Changes to the model that keep the current basis for the next solve.
  void set_row_bounds(std::size_t row, double lower, double upper);
  void set_variable_bounds(std::size_t variable, double lower, double upper);
  void set_objective(std::size_t variable, double coefficient);
  // Replaces a variable's coefficients in every row (the basis is kept; the solve refactors).
  void set_column(std::size_t variable, const std::vector<std::pair<std::size_t, double>>& row_coefficients);
  void set_sense(Sense sense);

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
