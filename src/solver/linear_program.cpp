// Building a LinearProgram: indices in order, terms kept as given (checked when solved).
#include "solver/linear_program.h"

#include <utility>

namespace schedlab::solver {

std::size_t LinearProgram::add_variable(double lower, double upper, double objective, bool integer) {
  variables_.push_back(Variable{lower, upper, objective, integer});
  return variables_.size() - 1;
}

std::size_t LinearProgram::add_row(std::vector<Term> terms, double lower, double upper) {
  rows_.push_back(Row{std::move(terms), lower, upper});
  return rows_.size() - 1;
}

const char* to_string(LpStatus status) {
  switch (status) {
    case LpStatus::optimal: return "optimal";
    case LpStatus::feasible: return "feasible";
    case LpStatus::infeasible: return "infeasible";
    case LpStatus::unbounded: return "unbounded";
    case LpStatus::failed: return "failed";
  }
  return "failed";
}

}  // namespace schedlab::solver
