// A starting basis for finish-time fairness's first program when it is solved cold (issue 30's
// speed target: 1,000 jobs that all just arrived on 4 GPU types, <= 100 ms a round). From the
// all-slack basis GLPK's dual simplex brings the jobs in a pivot at a time (~2,300 pivots at
// 1,000 jobs). The optimum has a simple shape, though: each job runs on the GPU type that is
// cheapest at the types' shadow prices, or on two types when no single one gives it its
// throughput in the time there is. A small program over every k-th job (the types' GPUs
// scaled alike) estimates those prices and the level lambda, and each job's basic variables
// follow. The basis leaves s non-basic, so it is dual feasible for "minimise s" whatever the
// guesses: the dual simplex goes on from it to an optimum of the same program; a wrong guess
// costs pivots, never the answer. Internal to sched/gavel/.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "sched/gavel/finish_time_iteration.h"

namespace schedlab::sched::gavel {

// Where job i runs in the guessed basis: on `first` alone, or on `first` and `second` with all
// of its time (its fractions sum to 1).
struct TypeChoice {
  std::size_t first = 0;
  std::optional<std::size_t> second;
};

// The cheapest way for one job to reach `throughput` (per unit of time) on the types it may use
// (`allowed`), a type costing price x GPUs x time: one type that reaches it alone, or a pair
// (one below it, one above) splitting the job's whole time. None reaches it: the fastest type
// alone (the simplex then repairs that job). Ties: the lower type index, then the lower pair.
TypeChoice choose_types(const std::vector<double>& job_throughput, const std::vector<bool>& allowed,
                        double scale_factor, double throughput, const std::vector<double>& prices);

// What the sample program found: the level lambda (<= cap) and each type's price per GPU.
struct SampledPrices {
  double lambda = 0;
  std::vector<double> prices;
};

// Solves the program over jobs 0, stride, 2 stride, ... (each type's GPUs scaled by the share
// of jobs sampled). Nothing when it fails; lambda = cap and prices 0 when it reaches the cap
// (no type binds).
std::optional<SampledPrices> sample_prices(const ThroughputMatrix& m, const AllocationVariables& vars,
                                           const std::vector<double>& need, double cap, std::size_t stride);

// Sets the guessed basis on p.s for the program aimed at `need` with level cap `cap` (`best`:
// each job's best throughput on a type it may use), and says
// whether it did (not for fewer than kCrashJobs jobs, whose cold solve takes a few ms, nor
// when the sample fails). Where the sample reaches the cap there are no prices: the jobs are
// placed first fit at the cap instead (an assignment that fits is optimal as it stands).
bool crash_finish_time(const ThroughputMatrix& m, const FinishTimeProgramView& p, const std::vector<double>& need,
                       const std::vector<double>& best, double cap);

inline constexpr std::size_t kCrashJobs = 200;

}  // namespace schedlab::sched::gavel
