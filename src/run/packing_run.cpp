// The packing experiment: arrivals built from the list, each placed by one scheduling pass.
#include "run/packing_run.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "cluster/allocation.h"
#include "engine/rng.h"
#include "metrics/writers.h"
#include "sched/scheduler.h"
#include "sim/model_requests.h"
#include "run/results_files.h"
#include "run/scenario_run.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/staging_dir.h"

namespace schedlab::run {

namespace {

std::uint64_t demand_of(const workload::JobSpec& s) {
  if (!s.needs_gpu()) return 0;
  const std::uint64_t per_task = s.fractional() ? s.gpu_milli : std::uint64_t{s.gpus_per_task} * 1000;
  return per_task * s.tasks;
}

// The pods in arrival order: the list, topped up with pods drawn from it until their demand
// reaches `target` milli, then shuffled when asked. Ids are arrival positions.
std::vector<workload::JobSpec> arrivals(std::vector<workload::JobSpec> list, std::uint64_t target,
                                        const config::PackingConfig& packing, std::uint64_t seed) {
  engine::Rng rng = engine::Rng(seed).stream("packing");
  std::uint64_t demand = 0;
  for (const auto& p : list) demand += demand_of(p);
  const std::size_t listed = list.size();
  if (demand > 0)
    while (demand < target) {
      const auto& drawn = list[static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(listed) - 1))];
      demand += demand_of(drawn);
      list.push_back(drawn);
    }
  if (packing.shuffled)
    for (std::size_t i = list.size(); i > 1; --i)  // Fisher-Yates with our own draws: the same order anywhere
      std::swap(list[i - 1], list[static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(i) - 1))]);
  for (std::size_t i = 0; i < list.size(); ++i) list[i].id = static_cast<workload::JobId>(i);
  return list;
}

struct PodRow {
  const workload::JobSpec* spec;
  std::string where;   // the placement, or "" when it failed
  std::string reason;  // why it failed
};

double ratio(std::uint64_t milli, std::uint64_t gpus) {
  return gpus ? static_cast<double>(milli) / (static_cast<double>(gpus) * 1000.0) : 0.0;
}

}  // namespace

double PackingOutcome::allocated_pct_at(std::uint32_t pct) const {
  for (const auto& p : curve)
    if (p.arrived_pct == pct) return 100.0 * ratio(p.allocated_milli, total_gpus);
  return 100.0 * ratio(allocated_milli, total_gpus);
}

std::vector<std::pair<std::string, double>> PackingOutcome::figures() const {
  return {{"pods", static_cast<double>(pods_arrived)},
          {"pods_placed", static_cast<double>(pods_placed)},
          {"pods_failed", static_cast<double>(pods_failed)},
          {"gpu_pods_failed", static_cast<double>(gpu_pods_failed)},
          {"gpu_demand_ratio", ratio(demand_milli, total_gpus)},
          {"gpu_alloc_ratio_at_100", allocated_pct_at(100) / 100.0},
          {"gpu_alloc_ratio", ratio(allocated_milli, total_gpus)},
          {"gpus_unallocated", static_cast<double>(total_gpus) - static_cast<double>(allocated_milli) / 1000.0}};
}

PackingOutcome run_packing(const config::Scenario& sc, util::Notices& notices, const std::string& out_dir, bool force) {
  cluster::Topology topo(sc.cluster, sc.catalog);
  auto source = open_workload(sc, notices);
  std::optional<util::StagingDir> dir;
  if (!out_dir.empty()) dir.emplace(out_dir, force);
  const std::string trace_name = sc.workload.generate ? std::string("generator") : sc.workload.trace;

  PackingOutcome out;
  out.total_gpus = topo.total_gpus();
  out.out_dir = out_dir;
  std::vector<workload::JobSpec> list;
  for (workload::JobSpec job; source->next(job);) list.push_back(job);
  out.pods_in_list = list.size();
  out.skipped_rows = source->skipped_rows();
  out.skipped_by_reason = source->skipped_by_reason();
  if (out.total_gpus == 0)
    throw util::InputError(sc.cluster_file, 0, "racks",
                           "the packing mode measures GPU allocation: the cluster has no GPUs");
  const auto target = static_cast<std::uint64_t>(std::ceil(sc.workload.packing.arrive_until * 1000.0 *
                                                           static_cast<double>(out.total_gpus)));
  const auto pods = arrivals(std::move(list), target, sc.workload.packing, sc.seed);

  cluster::AllocationState alloc(topo);
  sched::Scheduler scheduler(sc.scheduler, sched::builtin_parts(), topo);
  scheduler.set_strings(&source->strings());
  sim::ModelRequests requests(topo.catalog(), source->strings(), trace_name);
  // The paper's target workload: the whole list, known before the first pod arrives.
  for (const auto& p : pods) scheduler.expect_workload(p, requests.of(p));

  std::vector<PodRow> rows;
  std::vector<sched::StartDecision> starts;
  const auto last_pct = static_cast<std::uint32_t>(std::floor(sc.workload.packing.arrive_until * 100.0 + 1e-9));
  out.curve.push_back(PackingPoint{});
  for (const auto& pod : pods) {
    if (out.demand_milli >= target) break;
    const engine::Time now = static_cast<engine::Time>(pod.id);
    PodRow row{&pod, {}, {}};
    starts.clear();
    if (auto why = scheduler.submit(pod, requests.of(pod), now)) {
      row.reason = *why;
    } else {
      scheduler.schedule(now, alloc, starts);
      scheduler.starts_applied(now);
      if (!starts.empty() && starts.front().job_fully_started) {
        row.where = cluster::Placement{starts.front().slots}.describe();
      } else {
        // Not placed whole: what did start is given back, and the pod fails (it never waits).
        for (const auto& s : starts)
          for (const auto& slot : s.slots) alloc.release(slot);
        if (!starts.empty()) scheduler.job_stopped(pod.id, sched::StopCause::killed);
        scheduler.forget(pod.id, now);
        row.reason = starts.empty() ? "no room" : "only part of its tasks fit";
      }
    }
    ++out.pods_arrived;
    out.demand_milli += demand_of(pod);
    if (row.where.empty()) {
      ++out.pods_failed;
      if (pod.needs_gpu()) ++out.gpu_pods_failed;
    } else {
      ++out.pods_placed;
      out.allocated_milli += demand_of(pod);
    }
    rows.push_back(std::move(row));
    // Points for every whole percent this arrival crossed.
    while (out.curve.back().arrived_pct < last_pct &&
           out.demand_milli * 100 >= (out.curve.back().arrived_pct + std::uint64_t{1}) * out.total_gpus * 1000)
      out.curve.push_back(PackingPoint{out.curve.back().arrived_pct + 1, out.pods_arrived, out.pods_placed,
                                       out.demand_milli, out.allocated_milli});
  }
  if (!dir) return out;

  write_file(dir->file("packing.csv"), [&](std::ostream& o) { write_packing_csv(o, out); });
  write_file(dir->file("pods.csv"), [&](std::ostream& o) {
    o << "arrival,pod,tasks,gpus_per_task,gpu_milli,cpu_milli,placed,where,reason\n";
    for (const auto& r : rows) {
      const auto& s = *r.spec;
      o << s.id << ',' << util::csv_field(metrics::trace_name(s.trace_id, s.trace_number, source->strings())) << ','
        << s.tasks << ',' << s.gpus_per_task << ',' << s.gpu_milli << ',' << s.cpu_milli << ','
        << (r.where.empty() ? "no" : "yes") << ',' << util::csv_field(r.where) << ',' << util::csv_field(r.reason)
        << '\n';
    }
  });
  write_file(dir->file("summary.json"), [&](std::ostream& o) { write_packing_summary_json(o, out, sc.name); });
  write_file(dir->file("run.yaml"), [&](std::ostream& o) { write_run_yaml(o, sc); });
  dir->commit();
  return out;
}

void write_packing_csv(std::ostream& o, const PackingOutcome& out) {
  o << "arrived_pct,allocated_pct,pods_arrived,pods_placed,gpu_demand,gpus_allocated\n";
  for (const auto& p : out.curve)
    o << p.arrived_pct << ',' << fmt::format("{:.2f}", 100.0 * ratio(p.allocated_milli, out.total_gpus)) << ','
      << p.pods_arrived << ',' << p.pods_placed << ',' << metrics::gpu_milli_text(p.demand_milli) << ','
      << metrics::gpu_milli_text(p.allocated_milli) << '\n';
}

void write_packing_summary_json(std::ostream& o, const PackingOutcome& out, const std::string& scenario) {
  nlohmann::ordered_json j;
  j["scenario"] = scenario;
  j["mode"] = "packing";
  j["total_gpus"] = out.total_gpus;
  j["pods_in_list"] = out.pods_in_list;
  for (const auto& [name, value] : out.figures()) {
    if (metrics::is_count_figure(name))
      j[name] = static_cast<std::uint64_t>(value);
    else
      j[name] = std::round(value * 1e6) / 1e6;
  }
  j["skipped_rows"] = out.skipped_rows;
  auto& reasons = j["skipped_rows_by_reason"] = nlohmann::ordered_json::object();
  for (const auto& [reason, n] : out.skipped_by_reason) reasons[reason] = n;
  o << j.dump(2) << "\n";
}

std::string format_packing_table(const PackingOutcome& out) {
  std::string s;
  s += fmt::format("  pods arrived        {} ({} from the list), {} placed, {} failed ({} of them asking for GPUs)\n",
                   out.pods_arrived, out.pods_in_list, out.pods_placed, out.pods_failed, out.gpu_pods_failed);
  s += fmt::format("  GPU demand          {} GPUs ({:.1f}% of the cluster's {})\n",
                   metrics::gpu_milli_text(out.demand_milli), 100.0 * ratio(out.demand_milli, out.total_gpus),
                   out.total_gpus);
  s += fmt::format("  GPUs allocated      {:.2f}% when the demand reached 100%, {:.2f}% at the end ({} GPUs idle)\n",
                   out.allocated_pct_at(100), 100.0 * ratio(out.allocated_milli, out.total_gpus),
                   metrics::gpu_milli_text(out.total_gpus * 1000 - out.allocated_milli));
  if (out.skipped_rows > 0) {
    s += fmt::format("  rows left out       {}:", out.skipped_rows);
    for (const auto& [reason, n] : out.skipped_by_reason) s += fmt::format(" {} {};", reason, n);
    s.back() = '\n';
  }
  return s;
}

}  // namespace schedlab::run
