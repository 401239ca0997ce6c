// The crash basis of finish_time_crash.h. Rows of the program (finish_time_iteration.h): a fit
// row per job (<= 1), a job row per job (>= L need), a row per type (<= its GPUs); s non-basic.
#include "sched/gavel/finish_time_crash.h"

#include <algorithm>
#include <limits>

#include "solver/lp_solver.h"

namespace schedlab::sched::gavel {
namespace {

// Jobs the sample program takes (about): ~1 ms to solve cold, prices close enough that the full
// program's dual simplex needs ~6x fewer pivots than from the slack basis (1,000 jobs, 4 types).
constexpr std::size_t kSampleJobs = 50;

// A job that splits all of its time between a slower and a faster type to make `throughput`
// (x_slow + x_fast = 1, slower x_slow + faster x_fast = throughput): its share on the faster.
double share_on_faster(double slower, double faster, double throughput) {
  return (throughput - slower) / (faster - slower);
}

// The cheapest single type or pair for one job (choose_types), among the options whose GPU use
// fits `room` (per type) when it is given; nothing when none does.
std::optional<TypeChoice> cheapest_types(const std::vector<double>& job_throughput, const std::vector<bool>& allowed,
                                         double scale_factor, double throughput, const std::vector<double>& prices,
                                         const std::vector<double>* room) {
  const std::size_t types = job_throughput.size();
  // A little over the room is let through: the simplex's tolerances take it.
  auto fits = [&](std::size_t k, double gpus) { return room == nullptr || gpus <= (*room)[k] * (1 + 1e-9); };
  std::optional<TypeChoice> choice;
  double least = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < types; ++k) {
    if (!allowed[k] || job_throughput[k] < throughput) continue;
    const double gpus = scale_factor * throughput / job_throughput[k];
    if (fits(k, gpus) && prices[k] * gpus < least) {
      least = prices[k] * gpus;
      choice = TypeChoice{k, std::nullopt};
    }
  }
  for (std::size_t a = 0; a < types; ++a) {
    if (!allowed[a] || job_throughput[a] >= throughput) continue;
    for (std::size_t b = 0; b < types; ++b) {
      if (!allowed[b] || job_throughput[b] <= throughput) continue;
      const double on_b = share_on_faster(job_throughput[a], job_throughput[b], throughput);
      const double gpus_a = scale_factor * (1 - on_b), gpus_b = scale_factor * on_b;
      const double cost = prices[a] * gpus_a + prices[b] * gpus_b;
      if (fits(a, gpus_a) && fits(b, gpus_b) && cost < least) {
        least = cost;
        choice = TypeChoice{a, b};
      }
    }
  }
  return choice;
}

}  // namespace

TypeChoice choose_types(const std::vector<double>& job_throughput, const std::vector<bool>& allowed,
                        double scale_factor, double throughput, const std::vector<double>& prices) {
  if (auto c = cheapest_types(job_throughput, allowed, scale_factor, throughput, prices, nullptr)) return *c;
  TypeChoice fastest;
  bool any = false;
  for (std::size_t k = 0; k < job_throughput.size(); ++k)
    if (allowed[k] && (!any || job_throughput[k] > job_throughput[fastest.first])) {
      fastest.first = k;
      any = true;
    }
  return fastest;
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
  const solver::LpResult r = solver::solve(lp, solver::SolveOptions{solver::Method::dual, false, true});
  if (r.status != solver::LpStatus::optimal) return std::nullopt;
  SampledPrices out{cap, std::vector<double>(types, 0.0)};
  if (!(r.objective > 1e-9 * cap)) return out;  // the cap is reached: no type binds
  out.lambda = cap - r.objective;
  for (std::size_t k = 0; k < types; ++k) out.prices[k] = std::max(0.0, -r.row_duals[type_row[k]]);
  return out;
}

bool crash_finish_time(const ThroughputMatrix& m, const FinishTimeProgramView& p, const std::vector<double>& need,
                       const std::vector<double>& best, double cap) {
  const std::size_t n = m.jobs.size(), types = m.types.size();
  if (n < kCrashJobs) return false;
  const std::optional<SampledPrices> sample = sample_prices(m, p.vars, need, cap, n / kSampleJobs);
  if (!sample) return false;
  std::vector<bool> allowed(types);
  auto allowed_of = [&](std::size_t i) {
    for (std::size_t k = 0; k < types; ++k) allowed[k] = p.vars.index[i * types + k] != AllocationVariables::kNone;
  };
  std::vector<TypeChoice> choice(n);
  if (sample->lambda < cap) {
    for (std::size_t i = 0; i < n; ++i) {
      allowed_of(i);
      choice[i] = choose_types(m.jobs[i].throughput, allowed, m.jobs[i].scale_factor, sample->lambda * need[i],
                               sample->prices);
    }
  } else {
    // Every job can reach the cap: no prices, but an assignment that fits is optimal as it
    // stands. First fit, the jobs nearest their best throughput first (the one that sets the
    // cap needs all of its time on its best type), each where it takes the least share of a
    // type's GPUs among the options that still fit.
    std::vector<double> room(types), share(types);
    for (std::size_t k = 0; k < types; ++k) {
      room[k] = m.types[k].count;
      share[k] = m.types[k].count > 0 ? 1.0 / m.types[k].count : 0.0;
    }
    std::vector<std::size_t> order(n);
    std::vector<double> tightness(n);
    for (std::size_t i = 0; i < n; ++i) {
      order[i] = i;
      tightness[i] = cap * need[i] / best[i];
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return tightness[a] > tightness[b]; });
    for (std::size_t i : order) {
      allowed_of(i);
      const GavelJob& j = m.jobs[i];
      const double t = cap * need[i];
      const std::optional<TypeChoice> fit = cheapest_types(j.throughput, allowed, j.scale_factor, t, share, &room);
      choice[i] = fit ? *fit : choose_types(j.throughput, allowed, j.scale_factor, t, share);
      const TypeChoice& c = choice[i];
      if (!allowed[c.first]) continue;
      if (c.second) {
        const double on_b = share_on_faster(j.throughput[c.first], j.throughput[*c.second], t);
        room[c.first] -= j.scale_factor * (1 - on_b);
        room[*c.second] -= j.scale_factor * on_b;
      } else {
        room[c.first] -= j.scale_factor * std::min(1.0, t / j.throughput[c.first]);
      }
    }
  }
  std::vector<std::size_t> basic, tight;
  for (std::size_t i = 0; i < n; ++i) {
    const TypeChoice& c = choice[i];
    if (p.vars.index[i * types + c.first] == AllocationVariables::kNone) continue;  // runs nowhere: slack rows
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
