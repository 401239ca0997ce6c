// Sia's allocation as a 0-1 program over (job, configuration), solved by GLPK's branch and bound
// within a subproblem limit; what the search leaves undecided is rounded greedily.
#include "sched/sia_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "solver/lp_solver.h"

namespace schedlab::sched {

namespace {

// Sia's solver threshold (the artifact's sia_solver_thresh, CBC's allowable gap): a whole
// solution within this relative gap of the bound ends the search.
constexpr double kGap = 1e-4;
// The relaxation from the slack basis (x = 0, feasible: every row is an upper bound) by the
// primal simplex: 10x faster here than the dual, whose start is not dual feasible (1,000 jobs:
// 0.2 s against 2.1 s, docs/elastic.md "sia").
constexpr solver::SolveOptions kRelaxation{solver::Method::primal, false};

struct Column {
  std::size_t job = 0;
  int option = 0;
  double weight = 0;
};

}  // namespace

double sia_normalised(const SiaJob& job, std::size_t k) {
  double least = std::numeric_limits<double>::infinity();
  std::uint64_t least_gpus = 1;
  for (const auto& o : job.options)
    if (o.goodput < least || (o.goodput == least && o.gpus < least_gpus)) least = o.goodput, least_gpus = o.gpus;
  return job.options[k].goodput / least * static_cast<double>(least_gpus);
}

SiaPlan sia_plan(const std::vector<SiaJob>& jobs, const std::vector<std::uint64_t>& capacity, const SiaParams& params) {
  SiaPlan plan;
  plan.choice.assign(jobs.size(), -1);
  // The columns worth a place: a configuration that fits its type and whose term is positive
  // (a job is better off unscheduled than on one that is not: lambda_n + sign(p) g^p <= 0).
  std::vector<Column> columns;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const SiaJob& job = jobs[j];
    for (std::size_t k = 0; k < job.options.size(); ++k) {
      const SiaOption& o = job.options[k];
      if (o.type >= capacity.size() || o.gpus == 0 || o.gpus > capacity[o.type] || !(o.goodput > 0)) continue;
      const bool current = job.current == static_cast<int>(k);
      double g = sia_normalised(job, k);
      if (!current && job.current >= 0) g *= job.keep;  // a change restarts the job
      if (!(g > 0)) continue;
      const double term = params.p < 0 ? -std::pow(g, params.p) : std::pow(g, params.p);
      const double w = params.lambda_n + term + (current ? params.lambda_a : 0.0);
      if (w > 0 && std::isfinite(w)) columns.push_back({j, static_cast<int>(k), w});
    }
  }
  plan.columns = columns.size();
  if (columns.empty()) {
    plan.solve = "optimal";
    return plan;
  }
  solver::LinearProgram lp(solver::Sense::maximize);
  std::vector<std::vector<solver::Term>> per_type(capacity.size());
  std::vector<std::size_t> job_row(jobs.size());
  for (std::size_t c = 0; c < columns.size();) {
    std::vector<solver::Term> one;  // a job's configurations: at most one
    const std::size_t j = columns[c].job;
    for (; c < columns.size() && columns[c].job == j; ++c) {
      const auto v = lp.add_variable(0, 1, columns[c].weight, true);
      one.push_back({v, 1});
      const SiaOption& o = jobs[j].options[static_cast<std::size_t>(columns[c].option)];
      per_type[o.type].push_back({v, static_cast<double>(o.gpus)});
    }
    job_row[j] = lp.add_row(std::move(one), -solver::kInfinity, 1);
  }
  for (std::size_t t = 0; t < capacity.size(); ++t)
    if (!per_type[t].empty()) lp.add_row(std::move(per_type[t]), -solver::kInfinity, static_cast<double>(capacity[t]));
  solver::LpSolver lps(lp);
  // A crash: the greedy solution by term per GPU (each job its first configuration that still
  // fits) as the starting basis, a job's row tight where it has one. The simplex then starts
  // near the optimum (1,000 jobs: a fraction of the pivots from the slack basis).
  {
    std::vector<std::size_t> order(columns.size());
    for (std::size_t c = 0; c < order.size(); ++c) order[c] = c;
    auto gpus = [&](std::size_t c) {
      return static_cast<double>(jobs[columns[c].job].options[static_cast<std::size_t>(columns[c].option)].gpus);
    };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return columns[a].weight / gpus(a) > columns[b].weight / gpus(b);
    });
    std::vector<char> placed(jobs.size(), 0);
    std::vector<std::uint64_t> left = capacity;
    std::vector<std::size_t> basic, tight;
    for (auto c : order) {
      const std::size_t j = columns[c].job;
      const SiaOption& o = jobs[j].options[static_cast<std::size_t>(columns[c].option)];
      if (placed[j] || o.gpus > left[o.type]) continue;
      placed[j] = 1;
      left[o.type] -= o.gpus;
      basic.push_back(c);
      tight.push_back(job_row[j]);
    }
    lps.set_basis(basic, tight);
  }
  solver::LpResult r;
  if (params.nodes == 0) {
    r = lps.solve(kRelaxation);
    plan.solve = "rounded";
  } else {
    r = lps.solve_mip(solver::MipOptions{params.nodes, kGap}, kRelaxation);
    plan.nodes = r.nodes;
    plan.solve = r.status == solver::LpStatus::optimal ? "optimal" : "node limit";
    if (r.status == solver::LpStatus::failed) {
      // No whole solution within the node limit: the relaxation, rounded.
      r = lps.solve(kRelaxation);
      plan.solve = "rounded";
    }
  }
  if (r.status != solver::LpStatus::optimal && r.status != solver::LpStatus::feasible)
    throw std::logic_error(std::string("sia_plan: GLPK: ") + solver::to_string(r.status) + " " + r.detail);
  // Whole values as chosen; then each job left without one, in job order, takes its best
  // configuration that still fits (the relaxation's fractional jobs, or any the search left
  // out with room to spare).
  std::vector<std::uint64_t> left = capacity;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const SiaOption& o = jobs[columns[c].job].options[static_cast<std::size_t>(columns[c].option)];
    if (r.x[c] < 0.999 || o.gpus > left[o.type]) continue;  // (a relaxation's 0.9995s may not all fit)
    plan.choice[columns[c].job] = columns[c].option;
    left[o.type] -= o.gpus;
  }
  for (std::size_t c = 0; c < columns.size();) {
    const std::size_t j = columns[c].job;
    std::size_t best = columns.size();
    for (; c < columns.size() && columns[c].job == j; ++c) {
      if (plan.choice[j] >= 0) continue;
      const SiaOption& o = jobs[j].options[static_cast<std::size_t>(columns[c].option)];
      if (o.gpus <= left[o.type] && (best == columns.size() || columns[c].weight > columns[best].weight)) best = c;
    }
    if (best == columns.size()) continue;
    plan.choice[j] = columns[best].option;
    const SiaOption& o = jobs[j].options[static_cast<std::size_t>(columns[best].option)];
    left[o.type] -= o.gpus;
  }
  return plan;
}

}  // namespace schedlab::sched
