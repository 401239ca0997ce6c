// The crash basis of finish_time_crash.h. Rows of the program (finish_time_iteration.h): a fit
// row per job (<= 1), a job row per job (>= L need), a row per type (<= its GPUs); s non-basic.
#include "sched/gavel/finish_time_crash.h"

#include <limits>

#include "solver/lp_solver.h"

namespace schedlab::sched::gavel {
namespace {

// Jobs the sample program takes (about): ~1 ms to solve cold, prices close enough that the full
// program's dual simplex needs ~6x fewer pivots than from the slack basis (1,000 jobs, 4 types).
constexpr std::size_t kSampleJobs = 50;

}  // namespace

TypeChoice choose_types(const std::vector<double>& job_throughput, const std::vector<bool>& allowed,
                        double scale_factor, double throughput, const std::vector<double>& prices) {
  const std::size_t types = job_throughput.size();
  TypeChoice choice;
  double least = std::numeric_limits<double>::infinity();
  std::size_t fastest = types;
  for (std::size_t k = 0; k < types; ++k) {
    if (!allowed[k]) continue;
    if (fastest == types || job_throughput[k] > job_throughput[fastest]) fastest = k;
    if (job_throughput[k] < throughput) continue;
    const double cost = prices[k] * scale_factor * throughput / job_throughput[k];
    if (cost < least) {
      least = cost;
      choice = TypeChoice{k, std::nullopt};
    }
  }
  for (std::size_t a = 0; a < types; ++a) {
    if (!allowed[a] || job_throughput[a] >= throughput) continue;
    for (std::size_t b = 0; b < types; ++b) {
      if (!allowed[b] || job_throughput[b] <= throughput) continue;
      // x_a + x_b = 1 and throughput_a x_a + throughput_b x_b = throughput.
      const double on_b = (throughput - job_throughput[a]) / (job_throughput[b] - job_throughput[a]);
      const double cost = scale_factor * (prices[a] * (1 - on_b) + prices[b] * on_b);
      if (cost < least) {
        least = cost;
        choice = TypeChoice{a, b};
      }
    }
  }
  if (least == std::numeric_limits<double>::infinity() && fastest != types) choice = TypeChoice{fastest, std::nullopt};
  return choice;
}

std::optional<SampledPrices> sample_prices(const ThroughputMatrix& m, const AllocationVariables& vars,
                                           const std::vector<double>& need, double cap, std::size_t stride) {
  const std::size_t n = m.jobs.size(), types = m.types.size();
  solver::LinearProgram lp(solver::Sense::minimize);
  const std::size_t s_var = lp.add_variable(0, cap, 1);
  std::vector<std::vector<solver::Term>> per_type(types);
  std::size_t sampled = 0;
  for (std::size_t i = 0; i < n; i += stride, ++sampled) {
    const GavelJob& j = m.jobs[i];
    std::vector<solver::Term> fit, job;
    for (std::size_t k = 0; k < types; ++k) {
      if (vars.index[i * types + k] == AllocationVariables::kNone) continue;
      const std::size_t var = lp.add_variable(0, 1, 0);
      fit.push_back({var, 1});
      job.push_back({var, j.throughput[k]});
      per_type[k].push_back({var, static_cast<double>(j.scale_factor)});
    }
    job.push_back({s_var, need[i]});
    lp.add_row(std::move(fit), -solver::kInfinity, 1);
    lp.add_row(std::move(job), cap * need[i], solver::kInfinity);
  }
  const double share = static_cast<double>(sampled) / static_cast<double>(n);
  std::vector<std::size_t> type_row(types);
  for (std::size_t k = 0; k < types; ++k)
    type_row[k] = lp.add_row(std::move(per_type[k]), -solver::kInfinity, share * m.types[k].count);
  const solver::LpResult r = solver::solve(lp, solver::SolveOptions{solver::Method::dual, false});
  if (r.status != solver::LpStatus::optimal || !(r.objective > 1e-9 * cap)) return std::nullopt;
  SampledPrices out{cap - r.objective, std::vector<double>(types)};
  for (std::size_t k = 0; k < types; ++k) out.prices[k] = std::max(0.0, -r.row_duals[type_row[k]]);
  return out;
}

bool crash_finish_time(const ThroughputMatrix& m, const FinishTimeProgramView& p, const std::vector<double>& need,
                       double cap) {
  const std::size_t n = m.jobs.size(), types = m.types.size();
  if (n < kCrashJobs) return false;
  const std::optional<SampledPrices> sample = sample_prices(m, p.vars, need, cap, n / kSampleJobs);
  if (!sample) return false;
  std::vector<std::size_t> basic, tight;
  std::vector<bool> allowed(types);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < types; ++k) allowed[k] = p.vars.index[i * types + k] != AllocationVariables::kNone;
    const TypeChoice c = choose_types(m.jobs[i].throughput, allowed, m.jobs[i].scale_factor, sample->lambda * need[i],
                                      sample->prices);
    if (!allowed[c.first]) continue;  // a job that runs nowhere keeps its slack rows
    basic.push_back(p.vars.index[i * types + c.first]);
    tight.push_back(p.job_row[i]);
    if (c.second) {
      basic.push_back(p.vars.index[i * types + *c.second]);
      tight.push_back(p.vars.fit_row[i]);
    }
  }
  p.s.set_basis(basic, tight);
  return true;
}

}  // namespace schedlab::sched::gavel
