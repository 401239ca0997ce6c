// Wiring a scenario into a simulation and its results folder.
#include "run/scenario_run.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include "lifecycle/failures.h"
#include "metrics/collector.h"
#include "metrics/elastic_observer.h"
#include "metrics/event_log.h"
#include "metrics/fan_out.h"
#include "metrics/long_running_observer.h"
#include "metrics/writers.h"
#include "perf/perf_registry.h"
#include "sim/job_story.h"
#include "sim/pools_report_observer.h"
#include "run/results_files.h"
#include "run/workload_scan.h"
#include "sched/part_effects.h"
#include "util/error.h"
#include "util/notice.h"
#include "util/staging_dir.h"
#include "workload/arrival_scale.h"
#include "workload/job_limit.h"
#include "workload/mixed_source.h"

namespace schedlab::run {

namespace {
// Stops a source after `limit` jobs (workload.max_jobs).
class LimitedSource final : public workload::ForwardingJobSource {
 public:
  LimitedSource(std::unique_ptr<workload::JobSource> inner, std::uint64_t limit)
      : ForwardingJobSource(std::move(inner)), limit_(limit) {}
  bool next(workload::JobSpec& out) override { return produced_ < limit_ && inner_->next(out) && ++produced_; }
  double fraction_done() const override {
    return std::max(inner_->fraction_done(), static_cast<double>(produced_) / static_cast<double>(limit_));
  }

 private:
  std::uint64_t limit_;
  std::uint64_t produced_ = 0;
};

// The event log's name inside the results folder when `events` lies directly in `out_dir`
// (it is then written with the results: the folder is replaced as a whole); "" when it lies
// outside. Deeper inside, or the folder itself, is refused.
std::string events_inside_results(const std::string& events, const std::string& out_dir) {
  namespace fs = std::filesystem;
  if (out_dir.empty()) return {};
  std::error_code ec;
  const fs::path file = fs::weakly_canonical(fs::absolute(events, ec), ec);
  const fs::path dir = fs::weakly_canonical(fs::absolute(out_dir, ec), ec);
  if (file == dir) throw util::InputError(events, 0, "--events", "is the results folder; give a file name");
  auto [d, f] = std::mismatch(dir.begin(), dir.end(), file.begin(), file.end());
  if (d != dir.end()) return {};  // not under the results folder
  if (file.parent_path() != dir)
    throw util::InputError(
        events, 0, "--events",
        "is inside a subfolder of the results folder " + out_dir + "; put it beside the results or directly in them");
  const std::string name = file.filename().string();
  for (const char* taken :
       {"jobs.csv", "timeline.csv", "pools-timeline.csv", "summary.json", "run.yaml", util::kResultsMarker})
    if (name == taken) throw util::InputError(events, 0, "--events", "would replace the results' own " + name);
  return name;
}
// The jobs dropped at submit, per reason (jobs.csv has each job's), most frequent first.
std::vector<std::pair<std::string, std::uint64_t>> dropped_by_reason(const metrics::Collector& c) {
  std::map<std::string, std::uint64_t> n;
  for (const auto& r : c.jobs())
    if (r.dropped) ++n[std::string(c.text(r.drop_reason))];
  std::vector<std::pair<std::string, std::uint64_t>> out(n.begin(), n.end());
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}
// The lifecycle with the scenario's `elastic.restart_s`, when given.
lifecycle::LifecycleConfig with_resize_cost(lifecycle::LifecycleConfig c, const workload::ElasticDefaults& e) {
  c.resize_restart = e.restart;
  return c;
}
}  // namespace

std::unique_ptr<workload::JobSource> open_workload(const config::Scenario& sc, util::Notices& notices) {
  std::unique_ptr<workload::JobSource> src;
  if (sc.workload.generate)
    src = workload::make_generator(*sc.workload.generate, sc.seed);
  else if (!sc.workload.trace.empty()) {
    workload::TraceOptions options = sc.workload.options;
    options.notices = &notices;
    src = workload::open_trace(sc.workload.trace, options);
  }
  if (src && sc.workload.max_jobs) src = std::make_unique<LimitedSource>(std::move(src), sc.workload.max_jobs);
  if (src) src = workload::with_arrival_scale(std::move(src), sc.workload.arrival_scale);
  if (!sc.workload.long_running.empty() || !src)
    src = std::make_unique<workload::MixedSource>(std::move(src), sc.workload.long_running);
  src = workload::with_resource_defaults(std::move(src), sc.workload.resources);
  if (sc.workload.elastic.scales()) {
    std::uint64_t gpus = 0;  // the cluster's, the most any range may reach
    for (const auto& r : sc.cluster.racks)
      for (const auto& g : r.hosts) gpus += std::uint64_t{r.count} * g.count * g.gpus;
    src = workload::with_elastic_defaults(std::move(src), sc.workload.elastic, gpus);
  }
  // The one count of a run's jobs, whatever made them (validate drains this same stream).
  return workload::with_job_limit(std::move(src), sc.file, sc.workload.line, "workload");
}

RunOutcome run_scenario(const config::Scenario& sc, util::Notices& notices, const std::string& out_dir, bool force,
                        const std::string& events_file, const sim::RunHooks& hooks) {
  if (sc.workload.packing_mode)
    throw util::InputError(sc.file, sc.workload.mode_line, "workload.mode",
                           "packing places pods that never end, with no time line to replay or emulate (schedlab run, "
                           "compare and sweep run it)");
  cluster::Topology topo(sc.cluster, sc.catalog);
  // The perf model first (its settings' errors come before anything is said), then the
  // workload's checks and its offered load, before anything is written.
  auto perf =
      perf::make_perf_model(sc.perf.model, sc.perf.args, sc.file, topo, sc.seed, sc.perf.model_line, &notices);
  // The run replays the jobs the pass kept rather than reading the trace again, but for two
  // runs: with --skipped, whose file the run's own read writes once it reaches the end (so
  // that a run refused before that never writes it), and a driven run (emulation), whose jobs
  // from outside intern their names between the trace's as it is read (labels order the
  // per-user sums).
  WorkloadScan scan = scan_workload(sc, topo,
                                    {.keep_jobs = sc.workload.options.skipped_file.empty() && !hooks.drive,
                                     .one_gpu_work = perf->sizes_elastic_jobs(),
                                     .perf = perf.get()});
  notices.say(metrics::offered_load_text(scan.load));
  if (auto over = metrics::overload_text(scan.load)) notices.say(*over);
  for (const auto& why : sched::parts_without_effect(sc.scheduler, topo, {sc.lifecycle.failures.any()}))
    notices.say(why);
  std::unique_ptr<workload::JobSource> source;
  if (scan.kept) {
    scan.kept->replay_to(notices);
    source = std::move(scan.kept);
  } else {
    source = open_workload(sc, notices);
  }
  metrics::Collector collector(topo, sc.timeline_interval, &notices, sc.measure_window);
  // Output places are taken (and bad ones refused) before a long simulation.
  std::optional<util::StagingDir> dir;
  if (!out_dir.empty()) dir.emplace(out_dir, force);
  std::optional<util::StagedFile> events;
  std::optional<metrics::EventLog> log;
  const std::string log_inside = events_file.empty() ? "" : events_inside_results(events_file, out_dir);
  metrics::LongRunningObserver long_running(sc.workload.long_running, source->strings());
  metrics::ElasticObserver elastic;
  std::vector<metrics::RunObserver*> observers{&collector, &long_running, &elastic};
  if (!events_file.empty()) {
    events.emplace(log_inside.empty() ? events_file : dir->file(log_inside), "--events", metrics::kEventLogHeader);
    observers.push_back(&log.emplace(events->stream(), source->strings()));
  }
  std::optional<metrics::ProgressObserver> progress;
  if (hooks.progress)
    observers.push_back(&progress.emplace(hooks.progress, [s = source.get()] { return s->fraction_done(); }));
  std::optional<sim::JobStory> story;
  if (hooks.explain) observers.push_back(&story.emplace(*hooks.explain, source->strings()));
  std::optional<sim::PoolsReportObserver> pools_report;
  if (sc.pools.enabled && sc.pools.report_at) observers.push_back(&pools_report.emplace(*sc.pools.report_at));
  metrics::FanOut fan_out(observers);
  // Failures draw from their own seeded streams: the same seed gives the same failures under
  // any policy (common random numbers across compared runs).
  auto failures = hooks.drive ? nullptr : lifecycle::make_failure_source(sc.lifecycle.failures, topo, sc.seed);
  const sim::Driver driver = hooks.drive ? hooks.drive(topo, *perf) : sim::Driver{};
  sim::Simulation simulation(topo, sc.scheduler, *source, *perf, fan_out,
                             sc.workload.generate        ? std::string("generator")
                             : sc.workload.trace.empty() ? sc.file
                                                         : sc.workload.trace,
                             with_resize_cost(sc.lifecycle.config, sc.workload.elastic), failures.get(), driver,
                             &notices);
  if (sc.pools.enabled) simulation.use_pools(sc.pools, sc.seed);
  if (!sc.workload.long_running.empty()) simulation.use_long_running(sc.workload.long_running);
  if (story) {
    simulation.watch(story->target());
    story->ask_why_with([&simulation](workload::JobId id) { return simulation.waiting_reason(id); });
  }
  RunOutcome outcome;
  outcome.stats = simulation.run();
  if (story) outcome.story = story->text();
  if (pools_report) outcome.pools_report = pools_report->report();
  outcome.summary = metrics::summarize(collector, source->skipped_rows());
  outcome.summary.skipped_by_reason = source->skipped_by_reason();
  outcome.summary.services = long_running.services();
  outcome.summary.cron = long_running.cron();
  outcome.summary.offered_load = scan.load;
  if (auto text = dropped_text(dropped_by_reason(collector), "dropped at submit (jobs.csv gives each its reason)");
      !text.empty())
    notices.say(text);
  outcome.out_dir = out_dir;
  if (!dir) {
    if (hooks.finish) hooks.finish({}, collector, outcome.summary);
    if (events) events->commit();
    return outcome;
  }
  write_file(dir->file("jobs.csv"), [&](std::ostream& o) { metrics::write_jobs_csv(o, collector, source->strings()); });
  if (elastic.any()) write_file(dir->file("elastic.csv"), [&](std::ostream& o) { elastic.write_csv(o); });
  write_file(dir->file("timeline.csv"), [&](std::ostream& o) { metrics::write_timeline_csv(o, collector); });
  if (collector.has_pools())
    write_file(dir->file("pools-timeline.csv"),
               [&](std::ostream& o) { metrics::write_pools_timeline_csv(o, collector); });
  write_file(dir->file("summary.json"),
             [&](std::ostream& o) { metrics::write_summary_json(o, outcome.summary, sc.name); });
  write_file(dir->file("run.yaml"), [&](std::ostream& o) { write_run_yaml(o, sc); });
  if (hooks.finish) hooks.finish([&](const std::string& name) { return dir->file(name); }, collector, outcome.summary);
  // Inside the results folder the log is committed within the staging folder, then moves
  // with it; beside them it appears only once the results did.
  if (events && !log_inside.empty()) events->commit();
  // A log that cannot be written (a full disk) fails the run before the results replace
  // the previous ones.
  if (events && log_inside.empty()) events->flush_checked();
  dir->commit();
  if (events && log_inside.empty()) events->commit();
  return outcome;
}

}  // namespace schedlab::run
