// The workload pass before a run (workload_scan.h).
#include "run/workload_scan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>

#include "pools/pool_assigner.h"
#include "run/scenario_run.h"
#include "sched/registry.h"
#include "sched/scheduler.h"
#include "sim/model_requests.h"
#include "util/error.h"
#include "workload/trace_stats.h"

namespace schedlab::run {

std::string workload_name(const config::Scenario& sc) {
  return sc.workload.generate ? std::string("generator") : sc.workload.trace.empty() ? sc.file : sc.workload.trace;
}

WorkloadScan scan_workload(const config::Scenario& scenario, const cluster::Topology& topo, ScanOptions options) {
  // The run writes the skipped rows' file; this pass must not write it first.
  config::Scenario sc = scenario;
  sc.workload.options.skipped_file.clear();
  WorkloadScan out;
  // What the readers say is the run's to say, in its turn: a replay of kept jobs says it then,
  // a run that reads the workload again says it itself.
  util::Notices quiet(true);
  std::unique_ptr<workload::JobSource> read;
  if (options.keep_jobs)
    out.kept =
        std::make_unique<workload::RecordedSource>([&sc](util::Notices& held) { return open_workload(sc, held); });
  else
    read = open_workload(sc, quiet);
  workload::JobSource* source = out.kept ? out.kept.get() : read.get();
  const std::string name = workload_name(sc);
  sim::ModelRequests requests(topo.catalog(), source->strings(), name);
  std::unique_ptr<pools::PoolAssigner> pools;
  if (sc.pools.enabled) pools = std::make_unique<pools::PoolAssigner>(sc.pools, sc.seed);
  // The scheduler's own never-fits check (filters included), on a scheduler that never runs;
  // an external policy's filters are the built-in ones, so its process is not started.
  std::unique_ptr<sched::Scheduler> scheduler;
  if (options.fits) {
    sched::SchedulerConfig c = sc.scheduler;
    c.external = {};
    // Gavel's own refusals need the run's perf model: the run drops those jobs at submit.
    c.policy.clear();
    if (!scenario.scheduler.external.command.empty()) c.queue = "fifo";
    scheduler = std::make_unique<sched::Scheduler>(c, sched::builtin_parts(), topo);
  }
  metrics::OfferedLoadTally tally;
  std::map<std::string, std::uint64_t> never;
  workload::JobSpec job;
  while (source->next(job)) {
    ++out.jobs;
    const cluster::ModelMask mask = requests.of(job);
    if (options.perf && job.model != workload::kNoLabel)
      if (auto bad = options.perf->training_model_error(source->strings().str(job.model)))
        throw util::InputError(name, job.line, "model", *bad);
    if (pools) pools->pool_of(job, source->strings(), name);
    if (job.kind != workload::JobKind::service)
      tally.add(engine::to_seconds(job.submit),
                options.one_gpu_work && job.needs_gpu() ? engine::to_seconds(job.duration) / 3600.0
                                                        : workload::job_gpu_hours(job),
                mask);
    if (scheduler)
      if (auto why = scheduler->never_runs(job, mask)) ++never[*why];
  }
  std::vector<std::uint64_t> gpus(topo.catalog().size());
  for (cluster::ModelId m = 0; m < gpus.size(); ++m) gpus[m] = topo.gpus_of_model(m);
  out.load = tally.result(topo.catalog(), gpus);
  out.load.one_gpu_work = options.one_gpu_work;
  out.never_fit.assign(never.begin(), never.end());
  std::stable_sort(out.never_fit.begin(), out.never_fit.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

std::string dropped_text(const std::vector<std::pair<std::string, std::uint64_t>>& by_reason, const char* verb) {
  constexpr std::size_t kShown = 3;
  std::uint64_t total = 0;
  for (const auto& [why, n] : by_reason) total += n;
  if (total == 0) return {};
  std::string text = fmt::format("{} job(s) {}: ", total, verb);
  for (std::size_t i = 0; i < by_reason.size() && i < kShown; ++i)
    text += fmt::format("{}{} x {}", i ? "; " : "", by_reason[i].second, by_reason[i].first);
  if (by_reason.size() > kShown) text += fmt::format("; and {} other reason(s)", by_reason.size() - kShown);
  return text;
}

}  // namespace schedlab::run
