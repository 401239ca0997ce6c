// Gavel's heterogeneity-aware max-min fairness (`MaxMinFairnessPolicyWithPerf`) as one linear
// program over a throughput matrix, solved by solver/: maximise the least weighted,
// normalised effective throughput. docs/elastic.md, "Gavel's policies as linear programs",
// gives the program and how it differs from Gavel's.
#pragma once

#include "sched/gavel/throughput_matrix.h"

namespace schedlab::sched::gavel {

struct MaxMinOptions {
  // After the least share is found, a second program keeps every job at or above it and
  // gives the capacity left over to whoever gains the most normalised throughput from it.
  // Off by default, as in Gavel (one program; the round mechanism is work-conserving, so
  // GPUs that X leaves idle still run jobs); it about doubles the solve time.
  bool fill_leftover = false;
  // Jobs with the same throughputs, scale factor and weight are one row of the program, with
  // their GPUs counted once per job: the program is symmetric in them, so some optimum gives
  // them the same allocation, and the result is the same as with a row each (off: a row per
  // job, for comparison). Gavel's matrices are job type x GPU type: a real workload has far
  // fewer types than jobs.
  bool group_identical_jobs = true;
};

struct MaxMinResult {
  Allocation allocation;
  // The least of throughput x scale_factor / (weight x proportional throughput) over jobs.
  double min_normalised_throughput = 0;
};

// Throws util::InputError on a bad matrix (check_matrix); an empty job list gives an empty
// allocation. A solve that does not reach an optimum is a bug (the program is always feasible
// and bounded) and throws std::runtime_error.
MaxMinResult max_min_fairness(const ThroughputMatrix& m, const MaxMinOptions& options = {});

}  // namespace schedlab::sched::gavel
