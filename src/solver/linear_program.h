// A linear program as a value (variables with bounds, objective coefficients and whether they
// must take whole values, sparse rows with bounds, a sense) and the result of solving one; the
// solver itself is in solver/lp_solver.h. Kept free of GLPK so that callers build models without its header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace schedlab::solver {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

enum class Sense { maximize, minimize };

// One coefficient of a row: `coefficient * x[variable]`.
struct Term {
  std::size_t variable = 0;
  double coefficient = 0;
};

// A row `lower <= sum(terms) <= upper`; either bound may be infinite (kInfinity, -kInfinity).
struct Row {
  std::vector<Term> terms;
  double lower = -kInfinity;
  double upper = kInfinity;
};

struct Variable {
  double lower = 0;
  double upper = kInfinity;
  double objective = 0;
  bool integer = false;  // only solve_mip (lp_solver.h) honours it; solve() relaxes it
};

// The model. Indices are handed out in order from 0; a row may only name variables that exist
// when the program is solved. Finite bounds must satisfy lower <= upper (checked at solve).
class LinearProgram {
 public:
  explicit LinearProgram(Sense sense = Sense::maximize) : sense_(sense) {}

  std::size_t add_variable(double lower, double upper, double objective, bool integer = false);
  std::size_t add_row(std::vector<Term> terms, double lower, double upper);

  void set_sense(Sense sense) { sense_ = sense; }
  Sense sense() const { return sense_; }
  const std::vector<Variable>& variables() const { return variables_; }
  const std::vector<Row>& rows() const { return rows_; }

 private:
  Sense sense_;
  std::vector<Variable> variables_;
  std::vector<Row> rows_;
};

// `feasible`: solve_mip stopped at its node limit with a whole solution not proven optimal.
enum class LpStatus { optimal, feasible, infeasible, unbounded, failed };

const char* to_string(LpStatus status);

// What a solve found. `x` and `objective` are meaningful only when optimal or feasible; `detail` says why
// a solve failed (GLPK's return code) for the caller's message. `row_duals` (an optimal simplex
// solve asked for them, SolveOptions::duals; not solve_mip): each row's shadow price, the objective's change per unit of the
// row's bound (a binding <= row of a minimisation: <= 0).
struct LpResult {
  LpStatus status = LpStatus::failed;
  std::vector<double> x;
  std::vector<double> row_duals;
  double objective = 0;
  std::string detail;
  std::uint64_t nodes = 0;   // solve_mip: branch-and-bound subproblems selected after the root
  std::uint64_t pivots = 0;  // simplex iterations of this solve (a measure of its work, for tests)
};

}  // namespace schedlab::solver
