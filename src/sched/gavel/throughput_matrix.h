// The input of Gavel's heterogeneity-aware policies (OSDI'20): per job its throughput on each
// GPU type, the GPUs it needs at once (scale factor), its priority weight and, for
// finish-time fairness, how long it has been in the system and how much work is left; per GPU
// type the GPU count. Also the allocation they return (X[job][type], the fraction of time a
// job should run on each type) and the two equal-share throughputs Gavel normalises by.
// docs/elastic.md, "Gavel's policies as linear programs", has the formulas.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace schedlab::sched::gavel {

struct GpuType {
  std::string name;
  int count = 0;  // GPUs of this type in the cluster (0 allowed: nothing runs there)
};

struct GavelJob {
  std::string name;  // for messages
  // Per GPU type (in GpuType order), the job's rate of work when it runs on `scale_factor`
  // GPUs of that type, in the caller's unit (samples/s, iterations/s); 0 = cannot run there.
  std::vector<double> throughput;
  int scale_factor = 1;  // GPUs it needs at once, all of one type
  double weight = 1;     // priority weight (max-min fairness; Gavel's FTF ignores it, so do we)
  // Finish-time fairness only:
  double elapsed_s = 0;               // time since the job arrived
  double remaining_work = 0;          // in throughput's unit x seconds
  double isolated_time_so_far_s = 0;  // the time the work it has done would have taken at its
                                      // isolated share (Gavel keeps this sum across rounds; the
                                      // caller keeps it here)
};

struct ThroughputMatrix {
  std::vector<GpuType> types;
  std::vector<GavelJob> jobs;
};

// Bad values in a matrix, as util::InputError without a place (the caller, who read them,
// re-reports them at their file:line): a negative or non-finite throughput, a row of the wrong
// length, a scale factor below 1, a weight not above 0, a job that can run on no type (zero
// throughput everywhere, or only on types with fewer GPUs than its scale factor), a negative
// GPU count; with `finish_time` also remaining work not above 0 and negative times.
void check_matrix(const ThroughputMatrix& m, bool finish_time);

// X[job][type], row-major.
class Allocation {
 public:
  Allocation() = default;
  Allocation(std::size_t jobs, std::size_t types) : types_(types), x_(jobs * types, 0.0) {}
  std::size_t jobs() const { return types_ ? x_.size() / types_ : 0; }
  std::size_t types() const { return types_; }
  double at(std::size_t job, std::size_t type) const { return x_[job * types_ + type]; }
  double& at(std::size_t job, std::size_t type) { return x_[job * types_ + type]; }
  // The job's rate of work under this allocation: sum over types of throughput x fraction.
  double effective_throughput(const ThroughputMatrix& m, std::size_t job) const;

 private:
  std::size_t types_ = 0;
  std::vector<double> x_;
};

// Gavel's `ProportionalPolicy`: every job gets each type in proportion to its GPU count,
// scaled so that its fractions sum to 1; the job's throughput then is
// sum_t throughput[t] x count[t] / sum_t count[t] (the number of jobs cancels). Max-min
// fairness normalises by it.
std::vector<double> proportional_throughputs(const ThroughputMatrix& m);

// Gavel's `IsolatedPolicy`: each of the n jobs gets 1/n of every type's GPUs, i.e. a time
// fraction count[t] / (n x scale_factor) of type t, scaled down when those sum above 1.
// Finish-time fairness compares with the finish time under this share.
Allocation isolated_allocation(const ThroughputMatrix& m);
std::vector<double> isolated_throughputs(const ThroughputMatrix& m);

}  // namespace schedlab::sched::gavel
