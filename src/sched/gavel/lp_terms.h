// The parts that Gavel's two programs share: one variable per (job, GPU type) where the job
// can run (throughput above 0, enough GPUs of the type for its scale factor), and the rows
// that make an allocation fit: a job's fractions sum to at most 1, and a type's GPUs are not
// overcommitted (sum over jobs of fraction x scale factor <= count).
#pragma once

#include <cstddef>
#include <vector>

#include "sched/gavel/throughput_matrix.h"
#include "solver/linear_program.h"

namespace schedlab::sched::gavel {

struct AllocationVariables {
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::vector<std::size_t> index;     // jobs x types, row-major: the LP variable or kNone
  std::vector<std::size_t> fit_row;   // per job: its fractions sum to at most 1
  std::vector<std::size_t> type_row;  // per type: its GPUs are not overcommitted
};

// Adds the variables (bounds [0, 1], objective 0) and the fit rows to `lp`. `copies[i]`, when
// given, is how many identical jobs row i stands for (their GPUs count that many times).
AllocationVariables add_allocation(const ThroughputMatrix& m, solver::LinearProgram& lp,
                                   const std::vector<int>& copies = {});

// The allocation that an optimal solution's values give (clamped into [0, 1] against the
// solver's tolerances).
Allocation read_allocation(const ThroughputMatrix& m, const AllocationVariables& v, const std::vector<double>& x);

}  // namespace schedlab::sched::gavel
