// The LP wrapper over GLPK (solver/lp_solver.h) on linear programs small enough to solve by
// hand: an optimum at a vertex, an infeasible and an unbounded program, warm starts, malformed
// models, and silence (GLPK writes nothing to stdout or stderr).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "solver/lp_solver.h"

using namespace schedlab::solver;

namespace {

// max 3x + 2y  s.t.  x + y <= 4,  x + 3y <= 6,  0 <= x <= 3,  y >= 0.
// Vertices: (0,0) 0, (3,0) 9, (3,1) 11, (0,2) 4; the first two rows meet at (3,1) only when
// x = 3: x + y = 4 and x + 3y = 6 give y = 1, x = 3. Optimum 11 at (3, 1).
LinearProgram two_variable_max() {
  LinearProgram lp(Sense::maximize);
  const auto x = lp.add_variable(0, 3, 3);
  const auto y = lp.add_variable(0, kInfinity, 2);
  lp.add_row({{x, 1}, {y, 1}}, -kInfinity, 4);
  lp.add_row({{x, 1}, {y, 3}}, -kInfinity, 6);
  return lp;
}

}  // namespace

TEST_CASE("Solver.Lp.two_variable_max") {
  for (bool presolve : {false, true})
    for (Method method : {Method::primal, Method::dual}) {
      const LpResult r = solve(two_variable_max(), SolveOptions{method, presolve});
      REQUIRE(r.status == LpStatus::optimal);
      CHECK(r.objective == doctest::Approx(11));
      REQUIRE(r.x.size() == 2);
      CHECK(r.x[0] == doctest::Approx(3));
      CHECK(r.x[1] == doctest::Approx(1));
    }
}

TEST_CASE("Solver.Lp.infeasible") {
  // x + y >= 5 with x, y in [0, 1]: at most 2.
  LinearProgram lp(Sense::maximize);
  const auto x = lp.add_variable(0, 1, 1);
  const auto y = lp.add_variable(0, 1, 1);
  lp.add_row({{x, 1}, {y, 1}}, 5, kInfinity);
  for (bool presolve : {false, true}) {
    const LpResult r = solve(lp, SolveOptions{Method::primal, presolve});
    CHECK(r.status == LpStatus::infeasible);
    CHECK(r.x.empty());
  }
  CHECK(std::string(to_string(LpStatus::infeasible)) == "infeasible");
}

TEST_CASE("Solver.Lp.unbounded") {
  // max x + y with x - y <= 1, x, y >= 0: (1 + t, t) is feasible for every t.
  LinearProgram lp(Sense::maximize);
  const auto x = lp.add_variable(0, kInfinity, 1);
  const auto y = lp.add_variable(0, kInfinity, 1);
  lp.add_row({{x, 1}, {y, -1}}, -kInfinity, 1);
  for (bool presolve : {false, true}) CHECK(solve(lp, SolveOptions{Method::primal, presolve}).status == LpStatus::unbounded);
}

TEST_CASE("Solver.Lp.minimize_free_variable_equality_row") {
  // min x with x - y = -2, y in [0, 3], x free: x = y - 2 is least at y = 0, x = -2.
  LinearProgram lp(Sense::minimize);
  const auto x = lp.add_variable(-kInfinity, kInfinity, 1);
  const auto y = lp.add_variable(0, 3, 0);
  lp.add_row({{x, 1}, {y, -1}}, -2, -2);
  const LpResult r = solve(lp);
  REQUIRE(r.status == LpStatus::optimal);
  CHECK(r.objective == doctest::Approx(-2));
  CHECK(r.x[0] == doctest::Approx(-2));
  CHECK(r.x[1] == doctest::Approx(0));
}

TEST_CASE("Solver.Lp.duplicate_and_zero_terms") {
  // The row names x twice (x + x <= 4) and y with 0: max x + y, y <= 1 gives x = 2, y = 1.
  LinearProgram lp(Sense::maximize);
  const auto x = lp.add_variable(0, kInfinity, 1);
  const auto y = lp.add_variable(0, 1, 1);
  lp.add_row({{x, 1}, {y, 0}, {x, 1}}, -kInfinity, 4);
  const LpResult r = solve(lp);
  REQUIRE(r.status == LpStatus::optimal);
  CHECK(r.x[0] == doctest::Approx(2));
  CHECK(r.objective == doctest::Approx(3));
}

TEST_CASE("Solver.Lp.warm_start_after_changes") {
  LpSolver s(two_variable_max());
  REQUIRE(s.solve().objective == doctest::Approx(11));
  // x + y <= 2: now (2, 0) with 6 beats (0, 2) with 4.
  s.set_row_bounds(0, -kInfinity, 2);
  LpResult r = s.solve(SolveOptions{Method::dual, false});
  REQUIRE(r.status == LpStatus::optimal);
  CHECK(r.objective == doctest::Approx(6));
  CHECK(r.x[0] == doctest::Approx(2));
  // Objective 1x + 5y, minimised with y >= 0.5: x = 0, y = 0.5, 2.5.
  s.set_objective(0, 1);
  s.set_objective(1, 5);
  s.set_sense(Sense::minimize);
  s.set_variable_bounds(1, 0.5, kInfinity);
  r = s.solve();
  REQUIRE(r.status == LpStatus::optimal);
  CHECK(r.objective == doctest::Approx(2.5));
  // x's column replaced: row 0 now 2x + y <= 2 (x is worth 1, y 5: minimise, so still
  // x = 0, y = 0.5), and row 1 x + 3y <= 6 becomes -x + 3y <= 6.
  s.set_column(0, {{0, 2}, {1, -1}});
  s.set_sense(Sense::maximize);
  s.set_objective(1, 0);
  s.set_objective(0, 1);
  // max x: 2x + y <= 2 with y >= 0.5 gives x = 0.75.
  r = s.solve();
  REQUIRE(r.status == LpStatus::optimal);
  CHECK(r.x[0] == doctest::Approx(0.75));
  CHECK_THROWS_AS(s.set_column(0, {{9, 1}}), std::invalid_argument);
  // A bound that makes it infeasible: y >= 3 with x + y <= 2 (now 2x + y <= 2).
  s.set_variable_bounds(1, 3, kInfinity);
  CHECK(s.solve(SolveOptions{Method::dual, false}).status == LpStatus::infeasible);
}

TEST_CASE("Solver.Lp.malformed_models_are_refused_before_glpk") {
  LinearProgram bad_index;
  bad_index.add_variable(0, 1, 1);
  bad_index.add_row({{5, 1}}, 0, 1);
  CHECK_THROWS_AS(LpSolver{bad_index}, std::invalid_argument);
  LinearProgram upside_down;
  upside_down.add_variable(2, 1, 1);
  CHECK_THROWS_AS(LpSolver{upside_down}, std::invalid_argument);
  LinearProgram nan_coefficient;
  nan_coefficient.add_variable(0, 1, 1);
  nan_coefficient.add_row({{0, std::numeric_limits<double>::quiet_NaN()}}, 0, 1);
  CHECK_THROWS_AS(LpSolver{nan_coefficient}, std::invalid_argument);
  LpSolver s(two_variable_max());
  CHECK_THROWS_AS(s.set_row_bounds(7, 0, 1), std::invalid_argument);
  CHECK_THROWS_AS(s.set_variable_bounds(0, 1, 0), std::invalid_argument);
}

TEST_CASE("Solver.Lp.empty_program") {
  const LpResult r = solve(LinearProgram{});
  REQUIRE(r.status == LpStatus::optimal);
  CHECK(r.x.empty());
  CHECK(r.objective == 0);
}

TEST_CASE("Solver.Lp.glpk_prints_nothing") {
  // Solves that GLPK would report on (presolver messages, infeasibility, a basis rebuilt) with
  // stdout and stderr sent to a file: the file stays empty.
  std::fflush(stdout);
  std::fflush(stderr);
  char path[] = "/tmp/schedlab-lp-quiet-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  const int saved_out = dup(1), saved_err = dup(2);
  dup2(fd, 1);
  dup2(fd, 2);
  LinearProgram infeasible(Sense::maximize);
  infeasible.add_variable(0, 1, 1);
  infeasible.add_row({{0, 1}}, 2, kInfinity);
  const LpStatus a = solve(infeasible, SolveOptions{Method::primal, true}).status;
  const LpStatus b = solve(two_variable_max(), SolveOptions{Method::dual, true}).status;
  std::fflush(stdout);
  std::fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  const off_t size = lseek(fd, 0, SEEK_END);
  close(fd);
  unlink(path);
  CHECK(a == LpStatus::infeasible);
  CHECK(b == LpStatus::optimal);
  CHECK(size == 0);
}

// The 0-1 knapsack max 5a + 4b + 3c, 2a + 3b + c <= 5: the relaxation takes c, a and 2/3 of b
// (10.67); the whole optimum is a + b (9), ahead of a + c (8) and b + c (7).
TEST_CASE("Solver.Mip.knapsack") {
  LinearProgram lp(Sense::maximize);
  const auto a = lp.add_variable(0, 1, 5, true);
  const auto b = lp.add_variable(0, 1, 4, true);
  const auto c = lp.add_variable(0, 1, 3, true);
  lp.add_row({{a, 2}, {b, 3}, {c, 1}}, -kInfinity, 5);
  const LpResult relaxed = solve(lp);
  REQUIRE(relaxed.status == LpStatus::optimal);
  CHECK(relaxed.objective == doctest::Approx(32.0 / 3));
  LpSolver s(lp);
  const LpResult r = s.solve_mip(MipOptions{});
  REQUIRE(r.status == LpStatus::optimal);
  CHECK(r.objective == doctest::Approx(9));
  CHECK(r.x == std::vector<double>{1, 1, 0});
  CHECK(std::string(to_string(LpStatus::feasible)) == "feasible");
  // Infeasible whole: 2x = 1 with x integer has a relaxation (x = 0.5) but no whole solution.
  LinearProgram odd(Sense::maximize);
  const auto x = odd.add_variable(0, 3, 1, true);
  odd.add_row({{x, 2}}, 1, 1);
  CHECK(LpSolver(odd).solve_mip(MipOptions{}).status == LpStatus::infeasible);
  CHECK_THROWS_AS(LpSolver(odd).solve_mip(MipOptions{0, -1}), std::invalid_argument);
}

// A crash basis: x basic, the first row tight, is a valid start; the optimum is the same. A basis
// of the wrong size is refused before GLPK sees it.
TEST_CASE("Solver.Lp.crash_basis") {
  LpSolver s(two_variable_max());
  s.set_basis({0}, {0});
  const LpResult r = s.solve();
  REQUIRE(r.status == LpStatus::optimal);
  CHECK(r.objective == doctest::Approx(11));
  CHECK_THROWS_AS(s.set_basis({0, 1}, {0}), std::invalid_argument);
  CHECK_THROWS_AS(s.set_basis({2}, {0}), std::invalid_argument);
  CHECK_THROWS_AS(s.set_basis({0}, {2}), std::invalid_argument);
}

TEST_CASE("Solver.Lp.row_duals_when_asked") {
  // max 3x + 2y  s.t.  x + y <= 4,  x + 3y <= 10,  0 <= x <= 3,  y >= 0: optimum (3, 1), 11.
  // One more unit on the first row buys one more y (+2); the second is slack (6 < 10): 0.
  LinearProgram lp(Sense::maximize);
  const auto x = lp.add_variable(0, 3, 3);
  const auto y = lp.add_variable(0, kInfinity, 2);
  lp.add_row({{x, 1}, {y, 1}}, -kInfinity, 4);
  lp.add_row({{x, 1}, {y, 3}}, -kInfinity, 10);
  const LpResult plain = solve(lp, SolveOptions{Method::dual, false});
  REQUIRE(plain.status == LpStatus::optimal);
  CHECK(plain.row_duals.empty());
  CHECK(plain.pivots >= 1);
  const LpResult with = solve(lp, SolveOptions{Method::dual, false, true});
  REQUIRE(with.status == LpStatus::optimal);
  REQUIRE(with.row_duals.size() == 2);
  CHECK(with.row_duals[0] == doctest::Approx(2));
  CHECK(with.row_duals[1] == doctest::Approx(0));
}
