// The kept program's slots: every slot has a variable per GPU type (bounds [0, 0] where its
// job cannot run, or when the slot is free), a fit row (its fractions sum to at most 1) and a
// job row (free while the slot is); the type rows count every slot's GPUs.
#include "sched/gavel/finish_time_program.h"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <utility>

#include "sched/gavel/finish_time_iteration.h"
#include "solver/lp_solver.h"

namespace schedlab::sched::gavel {

FinishTimeProgram::FinishTimeProgram() = default;
FinishTimeProgram::~FinishTimeProgram() = default;

void FinishTimeProgram::build(const ThroughputMatrix& m, std::size_t capacity) {
  types_ = m.types;
  capacity_ = capacity;
  const std::size_t types = types_.size();
  solver::LinearProgram lp(solver::Sense::minimize);
  for (std::size_t v = 0; v < capacity * types; ++v) lp.add_variable(0, 0, 0);
  s_var_ = lp.add_variable(0, 0, 1);
  fit_row_.assign(capacity, 0);
  job_row_.assign(capacity, 0);
  type_row_.assign(types, 0);
  for (std::size_t slot = 0; slot < capacity; ++slot) {
    std::vector<solver::Term> terms;
    for (std::size_t k = 0; k < types; ++k) terms.push_back({var(slot, k), 1});
    fit_row_[slot] = lp.add_row(terms, -solver::kInfinity, 1);
    job_row_[slot] = lp.add_row(terms, -solver::kInfinity, solver::kInfinity);
  }
  for (std::size_t k = 0; k < types; ++k) {
    std::vector<solver::Term> terms;
    for (std::size_t slot = 0; slot < capacity; ++slot) terms.push_back({var(slot, k), 1});
    type_row_[k] = lp.add_row(std::move(terms), -solver::kInfinity, types_[k].count);
  }
  lp_ = std::make_unique<solver::LpSolver>(lp);
  slot_of_.clear();
  free_.clear();
  for (std::size_t slot = capacity; slot-- > 0;) free_.push_back(slot);
  ++rebuilds_;
  cold_ = true;
}

void FinishTimeProgram::load(std::size_t slot, const GavelJob& job, const ThroughputMatrix& m) {
  for (std::size_t k = 0; k < types_.size(); ++k) {
    std::vector<std::pair<std::size_t, double>> column{{fit_row_[slot], 1.0},
                                                       {type_row_[k], static_cast<double>(job.scale_factor)}};
    if (job.throughput[k] > 0) column.push_back({job_row_[slot], job.throughput[k]});
    lp_->set_column(var(slot, k), column);
    const bool runs = job.throughput[k] > 0 && m.types[k].count >= job.scale_factor;
    lp_->set_variable_bounds(var(slot, k), 0, runs ? 1 : 0);
  }
}

void FinishTimeProgram::unload(std::size_t slot) {
  for (std::size_t k = 0; k < types_.size(); ++k) lp_->set_variable_bounds(var(slot, k), 0, 0);
  lp_->set_row_bounds(job_row_[slot], -solver::kInfinity, solver::kInfinity);
}

FinishTimeResult FinishTimeProgram::solve(const ThroughputMatrix& m, const std::vector<std::uint64_t>& keys,
                                          const FinishTimeOptions& options) {
  check_matrix(m, true);
  const std::size_t n = m.jobs.size(), types = m.types.size();
  if (keys.size() != n) throw std::invalid_argument("FinishTimeProgram: one key per job");
  if (n == 0) return FinishTimeResult{Allocation(0, types), 0, 0};
  std::vector<std::uint64_t> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw std::invalid_argument("FinishTimeProgram: a key names two jobs");
  const bool same_types = lp_ && types_.size() == types &&
                          std::equal(types_.begin(), types_.end(), m.types.begin(), [](const auto& a, const auto& b) {
                            return a.name == b.name && a.count == b.count;
                          });
  if (!same_types)
    build(m, std::max<std::size_t>(64, 2 * n));
  else if (n > capacity_)
    build(m, std::max(2 * capacity_, n));
  // Jobs gone since the last call free their slots.
  bool freed = false;
  for (auto it = slot_of_.begin(); it != slot_of_.end();) {
    if (std::binary_search(sorted.begin(), sorted.end(), it->first)) {
      ++it;
      continue;
    }
    unload(it->second);
    free_.push_back(it->second);
    freed = true;
    it = slot_of_.erase(it);
  }
  if (freed) std::sort(free_.begin(), free_.end(), std::greater<>());  // the lowest slot is taken first
  AllocationVariables vars;
  vars.index.assign(n * types, AllocationVariables::kNone);
  vars.fit_row.resize(n);
  vars.type_row = type_row_;
  std::vector<std::size_t> job_row(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto [it, fresh] = slot_of_.try_emplace(keys[i], 0);
    if (fresh) {
      it->second = free_.back();
      free_.pop_back();
      load(it->second, m.jobs[i], m);
    }
    const std::size_t slot = it->second;
    job_row[i] = job_row_[slot];
    vars.fit_row[i] = fit_row_[slot];
    for (std::size_t k = 0; k < types; ++k)
      if (m.jobs[i].throughput[k] > 0 && m.types[k].count >= m.jobs[i].scale_factor)
        vars.index[i * types + k] = var(slot, k);
  }
  const bool cold = cold_;
  cold_ = false;
  return iterate_finish_time(m, options, FinishTimeProgramView{*lp_, vars, job_row, s_var_, cold});
}

}  // namespace schedlab::sched::gavel
