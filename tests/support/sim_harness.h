// Test helpers: small GPU catalogs and clusters built in code, an in-memory JobSource, and a
// harness that runs one simulation and records every observer call for the invariants.
#pragma once

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cluster/allocation.h"
#include "cluster/gpu_catalog.h"
#include "cluster/topology.h"
#include "lifecycle/failure_source.h"
#include "lifecycle/lifecycle_config.h"
#include "metrics/collector.h"
#include "metrics/fan_out.h"
#include "metrics/long_running_observer.h"
#include "pools/pool_book.h"
#include "perf/perf_model.h"
#include "sched/scheduler.h"
#include "sim/simulation.h"
#include "workload/job_spec.h"
#include "workload/long_running.h"
#include "workload/mixed_source.h"

namespace schedlab::testing {

using engine::kMicrosPerSecond;

inline engine::Time sec(double s) { return engine::from_seconds(s); }

// V100 (gen 70), A100 (gen 80), H100 and H200 (both gen 90: one generation, two models).
inline cluster::GpuCatalog small_catalog() {
  std::vector<cluster::GpuModel> m(4);
  m[0].name = "V100", m[0].generation = 70, m[0].speed = 1.0;
  m[1].name = "A100", m[1].generation = 80, m[1].speed = 2.2;
  m[2].name = "H100", m[2].generation = 90, m[2].speed = 4.5;
  m[3].name = "H200", m[3].generation = 90, m[3].speed = 5.0;
  return cluster::GpuCatalog(std::move(m));
}
inline constexpr cluster::ModelId kV100 = 0, kA100 = 1, kH100 = 2, kH200 = 3;

// `racks` identical racks of `hosts` hosts with `gpus` GPUs of `model` each.
inline cluster::ClusterSpec uniform_cluster(std::uint32_t racks, std::uint32_t hosts, std::uint16_t gpus,
                                            cluster::ModelId model = kV100) {
  cluster::ClusterSpec spec;
  spec.name = "uniform";
  cluster::RackSpec r;
  r.name = "r";
  r.count = racks;
  r.hosts.push_back(cluster::HostGroupSpec{hosts, gpus, model, 12.5});
  spec.racks.push_back(r);
  return spec;
}

// A small heterogeneous cluster (34 GPUs):
//   rack v100: hosts 0-1, 4 x V100; host 2, 2 x V100
//   rack a100: hosts 3-4, 8 x A100
//   rack h:    host 5, 4 x H100; host 6, 4 x H200
inline cluster::ClusterSpec hetero_cluster() {
  cluster::ClusterSpec spec;
  spec.name = "hetero";
  cluster::RackSpec v{"v100", 1, {{2, 4, kV100, 12.5}, {1, 2, kV100, 12.5}}, 0, 2};
  cluster::RackSpec a{"a100", 1, {{2, 8, kA100, 25}}, 0, 2};
  cluster::RackSpec h{"h", 1, {{1, 4, kH100, 50}, {1, 4, kH200, 50}}, 0, 2};
  spec.racks = {v, a, h};
  return spec;
}

// A job as a trace row would give it; `model` is a request ("" = any, "A|B" = either).
struct JobRow {
  JobRow() = default;
  JobRow(double submit, double duration, std::uint32_t tasks_ = 1, std::uint32_t gpus = 1, std::uint16_t milli = 1000)
      : submit_s(submit), duration_s(duration), tasks(tasks_), gpus_per_task(gpus), gpu_milli(milli) {}

  double submit_s = 0;
  double duration_s = 1;
  std::uint32_t tasks = 1;
  std::uint32_t gpus_per_task = 1;
  std::uint16_t gpu_milli = 1000;
  bool gang = true;
  std::string model;
  std::int16_t min_generation = 0;
  std::int32_t priority = 0;
  std::string pool;  // the trace's pool column (a virtual cluster, a queue)
  bool preemptible = true;
  // CPUs and memory per task, as a trace column gives them (0 = none asked for).
  std::uint32_t cpu_milli = 0;
  std::uint32_t mem_mib = 0;
};

// Jobs from memory: specs built by the test, handed out in the order given (which must be
// submit order). The test's sources fill `jobs_` with their own kind of row.
class SpecListSource : public workload::JobSource {
 public:
  bool next(workload::JobSpec& out) override {
    if (next_ == jobs_.size()) return false;
    out = jobs_[next_++];
    return true;
  }
  workload::StringPool& strings() override { return strings_; }

 protected:
  // The spec of row `i`, as a trace reader would make it.
  workload::JobSpec spec_of(const JobRow& r, std::size_t i) {
    workload::JobSpec j;
    j.id = static_cast<workload::JobId>(i);
    j.trace_number = i;
    j.line = static_cast<std::uint32_t>(i + 2);
    j.submit = sec(r.submit_s);
    j.duration = sec(r.duration_s);
    j.tasks = r.tasks;
    j.gpus_per_task = r.gpus_per_task;
    j.gpu_milli = r.gpu_milli;
    j.gang = r.gang;
    j.gpu_request = strings_.intern(r.model);
    j.min_generation = r.min_generation;
    j.priority = r.priority;
    j.pool = strings_.intern(r.pool);
    j.preemptible = r.preemptible;
    j.cpu_milli = r.cpu_milli;
    j.mem_mib = r.mem_mib;
    j.cpu_given = j.mem_given = true;
    return j;
  }

  workload::StringPool strings_;
  std::vector<workload::JobSpec> jobs_;

 private:
  std::size_t next_ = 0;
};

class VectorSource final : public SpecListSource {
 public:
  explicit VectorSource(const std::vector<JobRow>& rows) {
    for (std::size_t i = 0; i < rows.size(); ++i) jobs_.push_back(spec_of(rows[i], i));
  }
};

// What the observer saw of one job.
struct JobLog {
  int submits = 0, drops = 0, done = 0;
  std::string drop_reason;
  std::vector<engine::Time> starts;             // one per run
  std::vector<cluster::Placement> placements;  // one per run
  engine::Time end = -1;
  // The job's life as LifeEvents told it.
  int finishes = 0, fails = 0, stops = 0, restarts = 0;
  std::vector<std::pair<engine::Time, engine::Time>> stop_times;  // (stopped, GPUs freed)
  std::size_t runs_before_last_stop = 0;  // runs started before the last stop (earlier attempts)
  double held_milli_us = 0;  // integral of its allocation, from starts and run ends
  sched::JobLife final_life;  // as of its finish or fail
};

// Failures a test injects: a list in time order.
class ListFailureSource final : public lifecycle::FailureSource {
 public:
  explicit ListFailureSource(std::vector<lifecycle::FailureEvent> events) : events_(std::move(events)) {}
  bool next(lifecycle::FailureEvent& out) override {
    if (next_ == events_.size()) return false;
    out = events_[next_++];
    return true;
  }

 private:
  std::vector<lifecycle::FailureEvent> events_;
  std::size_t next_ = 0;
};

// Forwards to a Collector and checks capacity at every instant from the placements it saw:
// GPUs, CPUs and memory, per host and cluster-wide.
class RecordingObserver final : public metrics::RunObserver {
 public:
  RecordingObserver(const cluster::Topology& topo, metrics::Collector& collector)
      : topo_(&topo),
        collector_(&collector),
        whole_(topo.hosts().size(), 0),
        shares_(topo.hosts().size()),
        cpu_(topo.hosts().size(), 0),
        mem_(topo.hosts().size(), 0) {
    for (cluster::HostId h = 0; h < topo.hosts().size(); ++h) shares_[h].assign(topo.host(h).gpus, 0);
  }

  void on_submit(const workload::JobSpec& job, engine::Time now) override {
    ++log(job).submits;
    collector_->on_submit(job, now);
  }
  void on_drop(const workload::JobSpec& job, engine::Time now, const std::string& reason) override {
    auto& l = log(job);
    ++l.drops;
    l.drop_reason = reason;
    collector_->on_drop(job, now, reason);
  }
  void on_start(const workload::JobSpec& job, const cluster::Placement& tasks, engine::Time now, bool first) override {
    auto& l = log(job);
    auto& a = attempt_[job.id];
    // `first` marks the job's first start only, not a later run of a partly started job.
    if (first != l.starts.empty()) ++bad_first_flags_;
    if (!a.in_attempt) {
      a.in_attempt = true;
      ++running_;
    }
    ++a.held_runs;
    if (a.stopping) lifecycle_error(job.id, "a run started while the job was stopping");
    l.starts.push_back(now);
    l.placements.push_back(tasks);
    for (const auto& t : tasks.tasks) {
      if (t.milli) {
        REQUIRE(t.share_slot < shares_[t.host].size());
        shares_[t.host][t.share_slot] += t.milli;
      } else {
        whole_[t.host] += t.gpus;
      }
      used_milli_ += t.milli ? t.milli : std::uint64_t{t.gpus} * 1000;
      cpu_[t.host] += t.cpu_milli;
      mem_[t.host] += t.mem_mib;
      used_cpu_ += t.cpu_milli;
      // Every task holds what its job asks for.
      if (t.cpu_milli != job.cpu_milli || t.mem_mib != job.mem_mib)
        lifecycle_error(job.id, "a task holds other CPUs or memory than its job asks for");
    }
    collector_->on_start(job, tasks, now, first);
  }
  void on_run_end(const workload::JobSpec& job, const cluster::Placement& tasks, engine::Time start, engine::Time now,
                  bool job_done) override {
    auto& l = log(job);
    auto& a = attempt_[job.id];
    if (job_done) {
      ++l.done;
      l.end = now;
    }
    l.held_milli_us += static_cast<double>(tasks.used_milli()) * static_cast<double>(now - start);
    --a.held_runs;
    if (job_done || (a.stopping && a.held_runs == 0)) {
      if (a.stopping && !l.stop_times.empty()) l.stop_times.back().second = now;
      a.in_attempt = false;
      a.stopping = false;
      --running_;
    }
    ++run_ends_;
    for (const auto& t : tasks.tasks) {
      if (t.milli)
        shares_[t.host][t.share_slot] -= t.milli;
      else
        whole_[t.host] -= t.gpus;
      used_milli_ -= t.milli ? t.milli : std::uint64_t{t.gpus} * 1000;
      cpu_[t.host] -= t.cpu_milli;
      mem_[t.host] -= t.mem_mib;
      used_cpu_ -= t.cpu_milli;
    }
    collector_->on_run_end(job, tasks, start, now, job_done);
  }
  void on_life(const metrics::LifeEvent& e) override {
    auto& l = log(*e.job);
    auto& a = attempt_[e.job->id];
    const auto& life = *e.life;
    // Work done never exceeds the job's work, and goes back only by exactly the lost work.
    if (life.work_done > life.work_total + 1e-6) lifecycle_error(e.job->id, "work done exceeds the job's work");
    if (life.work_done + 1e-6 < a.work_done && e.step != metrics::LifeStep::stop && e.step != metrics::LifeStep::fail)
      lifecycle_error(e.job->id, "work done went backwards");
    switch (e.step) {
      case metrics::LifeStep::start:
        if (l.stops || l.finishes || l.fails) lifecycle_error(e.job->id, "a second first start");
        break;
      case metrics::LifeStep::restart:
        ++l.restarts;
        if (l.restarts > l.stops) lifecycle_error(e.job->id, "a restart without a stop");
        break;
      case metrics::LifeStep::stop:
        ++l.stops;
        a.stopping = true;
        l.stop_times.emplace_back(e.now, -1);
        l.runs_before_last_stop = l.starts.size();
        // The work kept plus the work thrown away is the work done at the stop, which is at
        // least what the job had before.
        if (life.work_done + e.lost_work_s * 1e6 + 1e-3 < a.work_done)
          lifecycle_error(e.job->id, "a stop lost more than the work since the last checkpoint");
        if (e.lost_work_s < 0) lifecycle_error(e.job->id, "negative lost work");
        break;
      case metrics::LifeStep::finish:
        ++l.finishes;
        l.final_life = life;
        if (std::abs(life.work_done - life.work_total) > 1e-6) lifecycle_error(e.job->id, "finished with work left");
        break;
      case metrics::LifeStep::fail:
        ++l.fails;
        l.final_life = life;
        break;
    }
    a.work_done = life.work_done;
    collector_->on_life(e);
  }

  void on_instant(const metrics::InstantState& s) override {
    ++instants_;
    // Every GPU is held whole, shared, free or down: exactly one of them.
    std::uint64_t whole = 0, shared = 0;
    for (cluster::HostId h = 0; h < whole_.size(); ++h) {
      whole += whole_[h];
      for (auto u : shares_[h]) shared += u > 0;
    }
    if (whole + shared + s.free_gpus + s.down_gpus != topo_->total_gpus()) ++violations_;
    // Nothing runs on a host while it is down: no GPU, no CPU (hosts without GPUs never fail).
    for (const auto& f : down_) {
      if (s.now < f.at || s.now >= f.at + f.down_for || topo_->host(f.host).gpus == 0) continue;
      std::uint32_t held = whole_[f.host];
      for (auto u : shares_[f.host]) held += u > 0;
      if (held) lifecycle_error(0, fmt::format("GPUs held on host {} while it was down", f.host));
      if (cpu_[f.host]) lifecycle_error(0, fmt::format("CPUs held on host {} while it was down", f.host));
    }
    // The whole cluster, as the simulation reports it and as the placements add up.
    if (s.used_milli > topo_->total_gpus() * 1000) ++violations_;
    if (s.used_milli != used_milli_) ++violations_;
    if (s.free_gpus > topo_->total_gpus()) ++violations_;
    // Running jobs: started and not yet ended.
    if (s.running_jobs != running_) ++running_mismatches_;
    // No pool ever holds more than its limit of any resource.
    if (s.pools)
      for (std::size_t p = 0; p < s.pools->tree().size(); ++p)
        for (std::size_t r = 0; r < pools::kResources; ++r) {
          const double held = s.pools->allocation(static_cast<std::int32_t>(p))[r];
          const double limit = s.pools->tree()[p].limit[r];
          if (held > limit + 1e-6) ++pools_over_limit_;
          if (limit < pools::kUnlimited && held >= limit - 1e-6 && held > 0) ++pools_at_limit_;
        }
    // Every host: whole GPUs plus GPUs holding shares never exceed its GPUs; a shared GPU
    // holds at most 1000 thousandths.
    for (cluster::HostId h = 0; h < whole_.size(); ++h) {
      std::uint32_t shared = 0;
      for (auto u : shares_[h]) {
        if (u > 1000) ++violations_;
        shared += u > 0;
      }
      if (whole_[h] + shared > topo_->host(h).gpus) ++violations_;
      // CPUs and memory are never given out beyond a host's.
      if (cpu_[h] > topo_->host(h).cpu_milli || mem_[h] > topo_->host(h).mem_mib) ++violations_;
    }
    if (s.used_cpu_milli != used_cpu_) ++violations_;
    collector_->on_instant(s);
  }
  void on_finish(engine::Time now) override { collector_->on_finish(now); }

  const std::map<workload::JobId, JobLog>& jobs() const { return jobs_; }
  const JobLog& job(workload::JobId id) const { return jobs_.at(id); }
  // Instants at which GPUs, CPUs or memory were over-allocated or the reported use disagreed
  // with the runs.
  std::uint64_t violations() const { return violations_; }
  // Instants at which a pool held more than its limit; at which one held exactly its limit.
  std::uint64_t pools_over_limit() const { return pools_over_limit_; }
  std::uint64_t pools_at_limit() const { return pools_at_limit_; }
  // Instants at which the reported running-job count disagreed with the runs.
  std::uint64_t running_mismatches() const { return running_mismatches_; }
  // Starts whose `first` flag was wrong.
  std::uint64_t bad_first_flags() const { return bad_first_flags_; }
  std::uint64_t instants() const { return instants_; }
  std::uint64_t held_at_end() const { return used_milli_; }
  // Breaches of the lifecycle invariants, described (empty when none).
  const std::vector<std::string>& lifecycle_errors() const { return lifecycle_errors_; }
  // Whole-host failures the run injects, for the "nothing on a down host" check.
  void expect_down(std::vector<lifecycle::FailureEvent> f) { down_ = std::move(f); }

 private:
  JobLog& log(const workload::JobSpec& job) { return jobs_[job.id]; }
  void lifecycle_error(workload::JobId id, std::string what) {
    if (lifecycle_errors_.size() < 20) lifecycle_errors_.push_back(fmt::format("job {}: {}", id, what));
  }
  struct Attempt {
    bool in_attempt = false;  // started and not yet ended or stopped
    bool stopping = false;    // stopped, its GPUs not yet all freed
    int held_runs = 0;
    double work_done = 0;
  };
  std::map<workload::JobId, Attempt> attempt_;
  std::vector<std::string> lifecycle_errors_;
  std::vector<lifecycle::FailureEvent> down_;

  const cluster::Topology* topo_;
  metrics::Collector* collector_;
  std::vector<std::uint32_t> whole_;
  std::vector<std::vector<std::uint32_t>> shares_;
  std::uint64_t used_milli_ = 0;
  std::vector<std::uint64_t> cpu_, mem_;  // [host] held
  std::uint64_t used_cpu_ = 0;
  std::uint64_t violations_ = 0;
  std::uint64_t pools_over_limit_ = 0, pools_at_limit_ = 0;
  std::uint64_t running_mismatches_ = 0;
  std::uint64_t bad_first_flags_ = 0;
  std::uint64_t running_ = 0;
  std::uint64_t instants_ = 0;
  std::uint64_t run_ends_ = 0;
  std::map<workload::JobId, JobLog> jobs_;
};

// How jobs stop and come back in a SimRun: checkpoints, grace, retries, injected failures.
struct SimOptions {
  lifecycle::LifecycleConfig lifecycle;
  std::vector<lifecycle::FailureEvent> failures;  // in time order
  const pools::PoolsConfig* pools = nullptr;
  // Services and cron entries beside the rows (their jobs follow the rows' at equal instants).
  const workload::LongRunningWork* long_running = nullptr;
};

// Hands out another source's jobs without owning it (MixedSource owns its base).
class BorrowedSource final : public workload::JobSource {
 public:
  explicit BorrowedSource(workload::JobSource& s) : s_(s) {}
  bool next(workload::JobSpec& out) override { return s_.next(out); }
  workload::StringPool& strings() override { return s_.strings(); }

 private:
  workload::JobSource& s_;
};

// One simulation of `rows` on `spec` under `config`, trace perf model, everything kept for
// assertions. Members are declared in construction order (the topology points at the catalog).
struct SimRun {
  cluster::GpuCatalog catalog;
  cluster::Topology topo;
  VectorSource source;
  std::unique_ptr<perf::PerfModel> perf;
  metrics::Collector collector;
  RecordingObserver observer;
  sim::SimulationStats stats;
  std::vector<metrics::ServiceFigures> services;
  std::vector<metrics::CronFigures> cron;

  SimRun(const cluster::ClusterSpec& spec, const sched::SchedulerConfig& config, const std::vector<JobRow>& rows,
         cluster::GpuCatalog cat = small_catalog())
      : SimRun(spec, config, rows, SimOptions{}, std::move(cat)) {}

  SimRun(const cluster::ClusterSpec& spec, const sched::SchedulerConfig& config, const std::vector<JobRow>& rows,
         const SimOptions& options, cluster::GpuCatalog cat = small_catalog())
      : catalog(std::move(cat)),
        topo(spec, catalog),
        source(rows),
        perf(perf::make_trace_rate_model()),
        collector(topo, 60 * kMicrosPerSecond),
        observer(topo, collector) {
    ListFailureSource failures(options.failures);
    std::vector<lifecycle::FailureEvent> whole;
    for (const auto& f : options.failures)
      if (f.gpu == lifecycle::kWholeHost) whole.push_back(f);
    observer.expect_down(whole);
    std::unique_ptr<workload::JobSource> mixed;
    if (options.long_running)
      mixed = std::make_unique<workload::MixedSource>(std::make_unique<BorrowedSource>(source), *options.long_running);
    // The services and cron figures are an observer of their own, beside the recording one.
    metrics::LongRunningObserver long_running(options.long_running ? *options.long_running : workload::LongRunningWork{},
                                              source.strings());
    metrics::FanOut both({&observer, &long_running});
    sim::Simulation simulation(topo, config, mixed ? *mixed : source, *perf, both, "memory", options.lifecycle,
                               options.failures.empty() ? nullptr : &failures);
    if (options.pools) simulation.use_pools(*options.pools, 1);
    if (options.long_running) simulation.use_long_running(*options.long_running);
    stats = simulation.run();
    services = long_running.services();
    cron = long_running.cron();
  }

  const JobLog& job(workload::JobId id) const { return observer.job(id); }
  // The job's first start in seconds (-1 if it never started).
  double start_s(workload::JobId id) const {
    const auto& l = observer.job(id);
    return l.starts.empty() ? -1 : engine::to_seconds(l.starts.front());
  }
  double end_s(workload::JobId id) const { return engine::to_seconds(observer.job(id).end); }
  // Hosts of all the job's runs, in task order ("h3:4+h7:4" style, runs joined by " ").
  std::string where(workload::JobId id) const {
    std::string out;
    for (const auto& p : observer.job(id).placements) {
      if (!out.empty()) out += ' ';
      out += p.describe();
    }
    return out;
  }
};

inline sched::SchedulerConfig scheduler_config(std::string placement, std::vector<std::string> admission = {"gang"},
                                               std::vector<std::string> filters = {"gpu-model"},
                                               std::string backfill = "none") {
  sched::SchedulerConfig c;
  c.placement = std::move(placement);
  c.admission = std::move(admission);
  c.filters = std::move(filters);
  c.backfill = std::move(backfill);
  return c;
}

}  // namespace schedlab::testing
