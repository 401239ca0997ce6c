// GLPK behind LpSolver: the model copied into a glp_prob (1-based indices, duplicate terms of a
// row summed, zero terms dropped), the simplex run silently, its outcome mapped to LpStatus.
#include "solver/lp_solver.h"

#include <glpk.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace schedlab::solver {
namespace {

// GLPK prints through one terminal hook per thread; every entry point that may print turns it
// off first, so that nothing of GLPK's ever reaches stdout or stderr.
void quiet() { glp_term_out(GLP_OFF); }

// GLPK keeps one environment per thread, made on first use and kept until glp_free_env. It is
// freed when the thread's last problem is deleted, so that a thread that solved programs (a
// compare's variant) ends owning nothing; a problem is deleted on the thread that made it.
thread_local int live_problems = 0;

void check_bounds(double lower, double upper, const std::string& what) {
  if (std::isnan(lower) || std::isnan(upper))
    throw std::invalid_argument("linear program: " + what + ": a bound is NaN");
  if (lower > upper)
    throw std::invalid_argument("linear program: " + what + ": lower bound " + std::to_string(lower) +
                                " is above upper bound " + std::to_string(upper));
  if (lower == kInfinity || upper == -kInfinity)
    throw std::invalid_argument("linear program: " + what + ": a bound is infinite on the wrong side");
}

int bound_type(double lower, double upper) {
  const bool has_lower = lower != -kInfinity;
  const bool has_upper = upper != kInfinity;
  if (has_lower && has_upper) return lower == upper ? GLP_FX : GLP_DB;
  if (has_lower) return GLP_LO;
  if (has_upper) return GLP_UP;
  return GLP_FR;
}

double finite_or_zero(double v) { return std::isinf(v) ? 0.0 : v; }

int to_int(std::size_t n, const char* what) {
  if (n >= static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::invalid_argument(std::string("linear program: too many ") + what + " for GLPK");
  return static_cast<int>(n);
}

}  // namespace

void LpSolver::Free::operator()(glp_prob* p) const {
  glp_delete_prob(p);
  if (--live_problems == 0) glp_free_env();
}

LpSolver::LpSolver(const LinearProgram& lp) : variables_(lp.variables().size()), rows_(lp.rows().size()) {
  const int ncols = to_int(variables_, "variables");
  const int nrows = to_int(rows_, "rows");
  // Everything is checked before GLPK sees it: GLPK aborts the process on bad arguments.
  for (std::size_t j = 0; j < variables_; ++j) {
    const Variable& v = lp.variables()[j];
    check_bounds(v.lower, v.upper, "variable " + std::to_string(j));
    if (!std::isfinite(v.objective))
      throw std::invalid_argument("linear program: variable " + std::to_string(j) + ": objective is not finite");
  }
  // Rows as GLPK's triplets; a row's terms sorted by variable and duplicates summed.
  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0.0};
  std::vector<Term> terms;
  for (std::size_t i = 0; i < rows_; ++i) {
    const Row& r = lp.rows()[i];
    check_bounds(r.lower, r.upper, "row " + std::to_string(i));
    terms = r.terms;
    for (const Term& t : terms) {
      if (t.variable >= variables_)
        throw std::invalid_argument("linear program: row " + std::to_string(i) + " names variable " +
                                    std::to_string(t.variable) + " of " + std::to_string(variables_));
      if (!std::isfinite(t.coefficient))
        throw std::invalid_argument("linear program: row " + std::to_string(i) + ": a coefficient is not finite");
    }
    std::stable_sort(terms.begin(), terms.end(),
                     [](const Term& a, const Term& b) { return a.variable < b.variable; });
    for (std::size_t k = 0; k < terms.size();) {
      double sum = 0;
      std::size_t e = k;
      for (; e < terms.size() && terms[e].variable == terms[k].variable; ++e) sum += terms[e].coefficient;
      if (sum != 0) {
        ia.push_back(static_cast<int>(i) + 1);
        ja.push_back(static_cast<int>(terms[k].variable) + 1);
        ar.push_back(sum);
      }
      k = e;
    }
  }
  prob_.reset(glp_create_prob());
  ++live_problems;
  quiet();
  glp_set_obj_dir(prob_.get(), lp.sense() == Sense::maximize ? GLP_MAX : GLP_MIN);
  if (ncols > 0) glp_add_cols(prob_.get(), ncols);
  if (nrows > 0) glp_add_rows(prob_.get(), nrows);
  for (int j = 0; j < ncols; ++j) {
    const Variable& v = lp.variables()[static_cast<std::size_t>(j)];
    glp_set_col_bnds(prob_.get(), j + 1, bound_type(v.lower, v.upper), finite_or_zero(v.lower),
                     finite_or_zero(v.upper));
    glp_set_obj_coef(prob_.get(), j + 1, v.objective);
    if (v.integer) glp_set_col_kind(prob_.get(), j + 1, GLP_IV);
  }
  for (int i = 0; i < nrows; ++i) {
    const Row& r = lp.rows()[static_cast<std::size_t>(i)];
    glp_set_row_bnds(prob_.get(), i + 1, bound_type(r.lower, r.upper), finite_or_zero(r.lower),
                     finite_or_zero(r.upper));
  }
  glp_load_matrix(prob_.get(), static_cast<int>(ar.size() - 1), ia.data(), ja.data(), ar.data());
}

LpSolver::~LpSolver() = default;
LpSolver::LpSolver(LpSolver&&) noexcept = default;
LpSolver& LpSolver::operator=(LpSolver&&) noexcept = default;

void LpSolver::set_row_bounds(std::size_t row, double lower, double upper) {
  if (row >= rows_) throw std::invalid_argument("linear program: no row " + std::to_string(row));
  check_bounds(lower, upper, "row " + std::to_string(row));
  glp_set_row_bnds(prob_.get(), static_cast<int>(row) + 1, bound_type(lower, upper), finite_or_zero(lower),
                   finite_or_zero(upper));
}

void LpSolver::set_variable_bounds(std::size_t variable, double lower, double upper) {
  if (variable >= variables_) throw std::invalid_argument("linear program: no variable " + std::to_string(variable));
  check_bounds(lower, upper, "variable " + std::to_string(variable));
  glp_set_col_bnds(prob_.get(), static_cast<int>(variable) + 1, bound_type(lower, upper), finite_or_zero(lower),
                   finite_or_zero(upper));
}

void LpSolver::set_objective(std::size_t variable, double coefficient) {
  if (variable >= variables_) throw std::invalid_argument("linear program: no variable " + std::to_string(variable));
  if (!std::isfinite(coefficient)) throw std::invalid_argument("linear program: objective is not finite");
  glp_set_obj_coef(prob_.get(), static_cast<int>(variable) + 1, coefficient);
}

void LpSolver::set_column(std::size_t variable, const std::vector<std::pair<std::size_t, double>>& row_coefficients) {
  if (variable >= variables_) throw std::invalid_argument("linear program: no variable " + std::to_string(variable));
  std::vector<std::pair<std::size_t, double>> sorted = row_coefficients;
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<int> ind{0};
  std::vector<double> val{0.0};
  for (std::size_t k = 0; k < sorted.size();) {
    if (sorted[k].first >= rows_) throw std::invalid_argument("linear program: no row " + std::to_string(sorted[k].first));
    double sum = 0;
    std::size_t e = k;
    for (; e < sorted.size() && sorted[e].first == sorted[k].first; ++e) sum += sorted[e].second;
    if (!std::isfinite(sum)) throw std::invalid_argument("linear program: a coefficient is not finite");
    if (sum != 0) {
      ind.push_back(static_cast<int>(sorted[k].first) + 1);
      val.push_back(sum);
    }
    k = e;
  }
  glp_set_mat_col(prob_.get(), static_cast<int>(variable) + 1, static_cast<int>(ind.size() - 1), ind.data(), val.data());
}

void LpSolver::set_basis(const std::vector<std::size_t>& basic_variables, const std::vector<std::size_t>& tight_rows) {
  if (basic_variables.size() != tight_rows.size())
    throw std::invalid_argument("linear program: a basis needs as many basic variables as tight rows");
  for (auto j : basic_variables)
    if (j >= variables_) throw std::invalid_argument("linear program: no variable " + std::to_string(j));
  for (auto i : tight_rows)
    if (i >= rows_) throw std::invalid_argument("linear program: no row " + std::to_string(i));
  for (std::size_t j = 0; j < variables_; ++j) glp_set_col_stat(prob_.get(), static_cast<int>(j) + 1, GLP_NL);
  for (std::size_t i = 0; i < rows_; ++i) glp_set_row_stat(prob_.get(), static_cast<int>(i) + 1, GLP_BS);
  for (auto j : basic_variables) glp_set_col_stat(prob_.get(), static_cast<int>(j) + 1, GLP_BS);
  for (auto i : tight_rows) glp_set_row_stat(prob_.get(), static_cast<int>(i) + 1, GLP_NU);
}

void LpSolver::set_sense(Sense sense) { glp_set_obj_dir(prob_.get(), sense == Sense::maximize ? GLP_MAX : GLP_MIN); }

LpResult LpSolver::solve(const SolveOptions& options) {
  quiet();
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.meth = options.method == Method::dual ? GLP_DUALP : GLP_PRIMAL;
  parm.presolve = options.presolve ? GLP_ON : GLP_OFF;
  LpResult result;
  const int pivots_before = glp_get_it_cnt(prob_.get());
  int rc = glp_simplex(prob_.get(), &parm);
  if (rc == GLP_EBADB || rc == GLP_ESING || rc == GLP_ECOND || rc == GLP_EFAIL) {
    // The kept basis is unusable (changes made it singular or ill-conditioned, or the simplex
    // failed numerically from it: Gavel's continuous trace at 5.2 jobs/h, finish-time fairness,
    // docs/elastic.md "Reproducing Gavel"): start again from the standard one.
    glp_std_basis(prob_.get());
    rc = glp_simplex(prob_.get(), &parm);
  }
  if (rc == GLP_ENODFS) {
    // The presolver cannot tell unbounded from infeasible: the simplex itself can.
    parm.presolve = GLP_OFF;
    glp_std_basis(prob_.get());
    rc = glp_simplex(prob_.get(), &parm);
  }
  if (rc == GLP_ENOPFS) {
    result.status = LpStatus::infeasible;
    return result;
  }
  if (rc != 0) {
    result.detail = "GLPK simplex returned code " + std::to_string(rc);
    return result;
  }
  result.pivots = static_cast<std::uint64_t>(std::max(0, glp_get_it_cnt(prob_.get()) - pivots_before));
  switch (glp_get_status(prob_.get())) {
    case GLP_OPT: result.status = LpStatus::optimal; break;
    case GLP_NOFEAS: result.status = LpStatus::infeasible; return result;
    case GLP_UNBND: result.status = LpStatus::unbounded; return result;
    default:
      result.detail = "GLPK simplex ended with status " + std::to_string(glp_get_status(prob_.get()));
      return result;
  }
  result.objective = glp_get_obj_val(prob_.get());
  result.x.resize(variables_);
  for (std::size_t j = 0; j < variables_; ++j) result.x[j] = glp_get_col_prim(prob_.get(), static_cast<int>(j) + 1);
  if (options.duals) {
    result.row_duals.resize(rows_);
    for (std::size_t i = 0; i < rows_; ++i) result.row_duals[i] = glp_get_row_dual(prob_.get(), static_cast<int>(i) + 1);
  }
  return result;
}

namespace {

// Branch and bound's callback: counts the subproblems the search selects and ends it at the limit.
struct NodeCount {
  std::uint64_t limit = 0;
  std::uint64_t selected = 0;
};

void count_nodes(glp_tree* tree, void* info) {
  if (glp_ios_reason(tree) != GLP_ISELECT) return;
  auto* n = static_cast<NodeCount*>(info);
  if (n->limit != 0 && n->selected >= n->limit) {
    glp_ios_terminate(tree);
    return;
  }
  ++n->selected;
}

}  // namespace

LpResult LpSolver::solve_mip(const MipOptions& mip, const SolveOptions& lp) {
  if (!(mip.gap >= 0) || !std::isfinite(mip.gap)) throw std::invalid_argument("linear program: MIP gap must be >= 0");
  LpResult result = solve(lp);  // the relaxation: branch and bound starts from its optimal basis
  if (result.status != LpStatus::optimal) return result;
  quiet();
  NodeCount nodes{mip.node_limit, 0};
  glp_iocp parm;
  glp_init_iocp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.mip_gap = mip.gap;
  parm.cb_func = count_nodes;
  parm.cb_info = &nodes;
  const int rc = glp_intopt(prob_.get(), &parm);
  result = LpResult{};
  result.nodes = nodes.selected;
  if (rc == GLP_ENOPFS) {
    result.status = LpStatus::infeasible;
    return result;
  }
  if (rc != 0 && rc != GLP_ESTOP && rc != GLP_EMIPGAP) {
    result.detail = "GLPK branch and bound returned code " + std::to_string(rc);
    return result;
  }
  switch (glp_mip_status(prob_.get())) {
    case GLP_OPT:
    case GLP_FEAS:
      // Within the gap counts as optimal; only a search cut short by the node limit is not.
      result.status = rc == GLP_ESTOP ? LpStatus::feasible : LpStatus::optimal;
      break;
    case GLP_NOFEAS: result.status = LpStatus::infeasible; return result;
    default:
      result.detail = "GLPK branch and bound found no whole solution within " + std::to_string(mip.node_limit) +
                      " subproblems";
      return result;
  }
  result.objective = glp_mip_obj_val(prob_.get());
  result.x.resize(variables_);
  for (std::size_t j = 0; j < variables_; ++j) result.x[j] = glp_mip_col_val(prob_.get(), static_cast<int>(j) + 1);
  return result;
}

LpResult solve(const LinearProgram& lp, const SolveOptions& options) { return LpSolver(lp).solve(options); }

}  // namespace schedlab::solver
