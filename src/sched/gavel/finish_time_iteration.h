// The fixed-point iteration of finish-time fairness (finish_time_fairness.cpp) over a program
// that either the from-scratch solve builds or FinishTimeProgram keeps between rounds: one
// row per job (throughput[i](X) + need[i] s >= L need[i]), the variable s (objective 1,
// minimised), and the allocation's variables with the fit rows. Internal to sched/gavel/.
#pragma once

#include <cstddef>
#include <vector>

#include "sched/gavel/finish_time_fairness.h"
#include "sched/gavel/lp_terms.h"
#include "solver/lp_solver.h"

namespace schedlab::sched::gavel {

struct FinishTimeProgramView {
  solver::LpSolver& s;
  const AllocationVariables& vars;          // jobs x types of the matrix (kNone: cannot run)
  const std::vector<std::size_t>& job_row;  // per job of the matrix
  std::size_t s_var;
  bool cold = false;  // the basis is the all-slack one: the first program starts from a crash
};

// Runs the iteration from the program's current basis; leaves it as the iteration's program
// (minimise s) for the next call. The matrix is checked by the caller.
FinishTimeResult iterate_finish_time(const ThroughputMatrix& m, const FinishTimeOptions& options,
                                     const FinishTimeProgramView& p);

}  // namespace schedlab::sched::gavel
