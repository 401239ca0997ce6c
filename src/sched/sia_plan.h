// Sia's allocation (Jayaram Subramanya et al., "Sia: Heterogeneity-aware, goodput-optimized
// ML-cluster scheduling", SOSP'23; its artifact github.com/siasosp23/artifacts,
// sia-simulator/sia.py), as a plain function over numbers: each job offers configurations (a
// GPU type and a GPU count) with its goodput on each; the goodputs are normalised by the job's
// least one, raised to the fairness power p, and an integer program picks at most one
// configuration per job, the GPUs of each type within its capacity, maximising
// sum over chosen of (lambda_n + sign(p) g^p), a running job's other configurations discounted
// by its restart factor and its own one favoured by lambda_a. Solved by GLPK's branch and bound
// with a subproblem limit (deterministic); docs/elastic.md "sia" has the details.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace schedlab::sched {

struct SiaOption {
  std::size_t type = 0;    // index into the capacities
  std::uint64_t gpus = 0;  // >= 1
  double goodput = 0;      // > 0, in any unit common to the job's options
};

struct SiaJob {
  std::vector<SiaOption> options;
  int current = -1;  // the option it runs on now (-1: it waits)
  double keep = 1;   // in [0, 1]: its restart factor, on every option but `current`
};

struct SiaParams {
  double p = -0.5;           // the fairness power, in [-10, 1], not 0 (Sia's default)
  double lambda_n = 1.1;     // > 1: a job's worth of being scheduled at all (Sia's lambda_n)
  double lambda_a = 0.01;    // >= 0: a running job's worth of keeping its configuration
  std::uint64_t nodes = 10;  // branch-and-bound subproblems after the root (0: none, rounding only)
};

struct SiaPlan {
  std::vector<int> choice;    // per job, its option (-1: none)
  std::string solve;          // "optimal", "node limit", "rounded": how the choice was found
  std::uint64_t columns = 0;  // configurations worth a place in the program
  std::uint64_t nodes = 0;    // subproblems the search took
};

// A job's normalised goodput on option k: goodput / least goodput x the least one's GPUs (so
// that a job's smallest configuration on its slowest type is worth its GPU count: 1 for an
// elastic job from one GPU, n for a rigid job of n, as in the artifact).
double sia_normalised(const SiaJob& job, std::size_t k);

// The configurations chosen. The GPUs chosen of each type never exceed `capacity`; a job with
// no option is never chosen. Throws std::logic_error where GLPK fails (a bug: the program is
// always feasible, choosing nothing).
SiaPlan sia_plan(const std::vector<SiaJob>& jobs, const std::vector<std::uint64_t>& capacity, const SiaParams& params);

}  // namespace schedlab::sched
