// Gavel's finish-time fairness (`FinishTimeFairnessPolicyWithPerf`, after Themis): minimise
// the largest ratio rho of a job's expected finish time under the allocation to its finish
// time under an isolated 1/n share of the cluster. Gavel hands the convex program to an
// interior-point solver; here it is a short sequence of linear programs (for a fixed rho every
// job's ratio <= rho is a linear bound on its throughput), warm-started one from the other.
// docs/elastic.md, "Gavel's policies as linear programs", has the derivation.
#pragma once

#include <cstdint>

#include "sched/gavel/throughput_matrix.h"

namespace schedlab::sched::gavel {

struct FinishTimeOptions {
  // The iteration stops when a step lowers the largest ratio by less than this fraction of
  // it (or not at all).
  double tolerance = 1e-6;
  // As in max-min fairness: a last program keeps every job's ratio at the best one found and
  // hands the capacity left over to the largest sum of throughput / isolated throughput.
  // Off by default (Gavel solves one program); it costs about a cold solve more.
  bool fill_leftover = false;
  // A cold first program (1,000 jobs: the slack basis takes thousands of pivots) starts from
  // the crash basis of finish_time_crash.h. Speed only: the optimum is the same; false for
  // comparisons.
  bool crash = true;
};

struct FinishTimeResult {
  Allocation allocation;
  double max_ratio = 0;  // the largest finish-time ratio rho under `allocation`
  int lp_solves = 0;
  std::uint64_t pivots = 0;  // simplex iterations over all of them
};

// Throws util::InputError on a bad matrix (check_matrix with finish_time); an empty job list
// gives an empty allocation. A solve that fails is a bug and throws std::runtime_error.
FinishTimeResult finish_time_fairness(const ThroughputMatrix& m, const FinishTimeOptions& options = {});

// rho of one job under an allocation: (elapsed + remaining / throughput(X)) /
// (isolated_time_so_far + remaining / isolated throughput); infinite when it gets no
// throughput.
double finish_time_ratio(const ThroughputMatrix& m, const Allocation& x, std::size_t job, double isolated_throughput);

}  // namespace schedlab::sched::gavel
