// Finish-time fairness with its linear program kept between rounds (issue 30's speed target:
// 1,000 active jobs, 4 GPU types, <= 100 ms a round). The program's rows are job *slots*: a
// job keeps its slot from round to round, a job that leaves frees it (its variables fixed at
// 0, its row free), a job that arrives takes a free slot by changing its variables' columns
// and bounds; the basis stays valid, so a round's solve starts from the last round's optimum
// and takes a few dozen pivots instead of thousands. Same optimum as finish_time_fairness()
// (a vertex of the same optimal face; the allocation may differ where the optimum leaves
// freedom).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "sched/gavel/finish_time_fairness.h"

namespace schedlab::solver {
class LpSolver;
}

namespace schedlab::sched::gavel {

class FinishTimeProgram {
 public:
  FinishTimeProgram();
  ~FinishTimeProgram();
  FinishTimeProgram(const FinishTimeProgram&) = delete;
  FinishTimeProgram& operator=(const FinishTimeProgram&) = delete;

  // As finish_time_fairness(m, options); `keys[i]` names job i across calls (a job id): a key
  // of the last call keeps its slot and its throughputs and scale factor must not have
  // changed. Rebuilt from scratch (a cold solve) when the GPU types change or the jobs
  // outgrow the slots (capacity doubles).
  FinishTimeResult solve(const ThroughputMatrix& m, const std::vector<std::uint64_t>& keys,
                         const FinishTimeOptions& options = {});

  std::size_t slots() const { return capacity_; }
  std::uint64_t rebuilds() const { return rebuilds_; }

 private:
  void build(const ThroughputMatrix& m, std::size_t capacity);
  void load(std::size_t slot, const GavelJob& job, const ThroughputMatrix& m);
  void unload(std::size_t slot);
  std::size_t var(std::size_t slot, std::size_t type) const { return slot * types_.size() + type; }

  std::unique_ptr<solver::LpSolver> lp_;
  std::vector<GpuType> types_;
  std::size_t capacity_ = 0;
  std::size_t s_var_ = 0;
  std::vector<std::size_t> fit_row_, job_row_, type_row_;
  std::map<std::uint64_t, std::size_t> slot_of_;
  std::vector<std::size_t> free_;  // free slots, the lowest last (taken first)
  std::uint64_t rebuilds_ = 0;
  bool cold_ = false;  // built since the last solve: its basis is the all-slack one
};

}  // namespace schedlab::sched::gavel
