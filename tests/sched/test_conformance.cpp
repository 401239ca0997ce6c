// The conformance suite: every registered combination of scheduler parts (queue x admission
// subsets x filter subsets x placement x preemption x backfill) on random small workloads
// and small heterogeneous clusters (with CPUs and memory, and CPU-only hosts), checked
// against the invariants every policy must keep:
//   - never more GPUs, CPUs or memory held than exist, cluster-wide and per host, at every
//     instant, and every task holds exactly its job's CPUs and memory;
//   - under gpu-hosts-for-gpu-jobs (unless_idle_s 0), a job without GPUs never runs on a
//     host with GPUs; jobs without GPUs run (none is dropped for want of a GPU);
//   - a gang under gang admission starts in exactly one run (its tasks start and end together);
//   - every job ends exactly once, or is dropped once with a reason;
//   - GPU-seconds of the runs equal the integral of the utilization timeline;
//   - under same-generation, a multi-GPU job never mixes generations; under gpu-model,
//     a job only runs on the models it requested;
// and, with checkpoints, graceful preemption and injected host and GPU failures on:
//   - no GPU and no CPU is held on a host while it is down, and every GPU is held, free or down;
//   - a gang's tasks start, stop and end together (one run per attempt);
//   - work done never exceeds the job's work and goes back only by the work a stop lost;
//   - attained GPU-seconds equal the integral of the job's allocation;
//   - every job ends exactly once: finished, failed (retries exhausted) or dropped;
// with pools: no pool ever holds more than its limit; with services and cron entries: every
// instance and occurrence ends once or is dropped once, and the services' figures hold.
#include <doctest/doctest.h>

#include <algorithm>
#include <fmt/format.h>

#include "../support/sim_harness.h"
#include "engine/rng.h"
#include "config/pools_config.h"
#include "sched/registry.h"
#include "workload/chronos_schedule.h"
#include "workload/long_running.h"

using namespace schedlab;
using namespace schedlab::cluster;
using namespace schedlab::testing;

namespace {

// Every non-empty subset (admission) or every subset (filters) of a name list.
std::vector<std::vector<std::string>> subsets(const std::vector<std::string>& names, bool allow_empty) {
  std::vector<std::vector<std::string>> out;
  for (std::size_t bits = allow_empty ? 0 : 1; bits < (std::size_t{1} << names.size()); ++bits) {
    std::vector<std::string> s;
    for (std::size_t i = 0; i < names.size(); ++i)
      if (bits >> i & 1) s.push_back(names[i]);
    out.push_back(s);
  }
  return out;
}

// The parts that need a scenario's pools: section (without one they decide nothing); they
// have their own conformance case below, with pools.
bool needs_pools(const std::string& part) { return part == "pools" || part == "pool-reclaim"; }

std::vector<std::string> without_pool_parts(std::vector<std::string> names) {
  std::erase_if(names, needs_pools);
  return names;
}

std::vector<sched::SchedulerConfig> every_combination() {
  const auto& r = sched::builtin_parts();
  std::vector<sched::SchedulerConfig> out;
  for (const auto& q : r.queues.names())
    for (const auto& adm : subsets(without_pool_parts(r.admissions.names()), false))
      for (const auto& filters : subsets(r.filters.names(), true))
        for (const auto& p : r.placements.names())
          for (const auto& pre : without_pool_parts(r.preemptions.names()))
            for (const auto& bf : r.backfills.names()) {
              sched::SchedulerConfig c;
              c.queue = q;
              c.admission = adm;
              c.filters = filters;
              c.placement = p;
              c.preemption = pre;
              c.backfill = bf;
              out.push_back(c);
            }
  return out;
}

std::string label(const sched::SchedulerConfig& c) {
  return fmt::format("{} [{}] [{}] {} {} {}", c.queue, fmt::join(c.admission, ","), fmt::join(c.filters, ","),
                     c.placement, c.preemption, c.backfill);
}

// A random small workload: whole-GPU jobs of 1-8 GPUs, multi-task gangs, non-gang jobs,
// fractional tasks (alone and as gangs), model requests and minimum generations, arrivals
// close enough together that jobs queue.
std::vector<JobRow> random_jobs(std::uint64_t seed, std::size_t n) {
  engine::Rng rng(seed);
  struct Shape {
    std::uint32_t tasks, gpus;
    std::uint16_t milli;
    bool gang;
  };
  const Shape shapes[] = {{1, 1, 1000, true}, {1, 2, 1000, true}, {1, 4, 1000, true}, {1, 8, 1000, true},
                          {2, 4, 1000, true}, {3, 2, 1000, true}, {4, 1, 1000, false}, {2, 8, 1000, true},
                          {1, 1, 250, true},  {1, 1, 600, true},  {3, 1, 300, true},   {5, 2, 1000, false},
                          {1, 16, 1000, true}};  // the last one never fits a host of 8
  const double shape_w[] = {8, 4, 4, 3, 3, 3, 3, 2, 4, 3, 2, 2, 0.3};
  // Jobs without GPUs: tasks of 1-16 CPUs (a 40-CPU task fits only a CPU-only host).
  const std::uint32_t cpu_job_cpus[] = {1, 2, 4, 16, 40};
  const char* models[] = {"", "A100", "H100|H200", "V100", "A100|H100"};
  const double model_w[] = {6, 2, 1, 1, 1};
  std::vector<JobRow> jobs;
  double t = 0;
  for (std::size_t i = 0; i < n; ++i) {
    t += std::round(rng.exponential(15.0));  // whole seconds: many jobs share instants
    const auto& s = shapes[rng.weighted_index(shape_w, std::size(shape_w))];
    JobRow j;
    j.submit_s = t;
    j.duration_s = static_cast<double>(rng.uniform_int(5, 300));
    j.tasks = s.tasks;
    j.gpus_per_task = s.gpus;
    j.gpu_milli = s.milli;
    j.gang = s.gang;
    j.model = models[rng.weighted_index(model_w, std::size(model_w))];
    if (rng.uniform() < 0.1) j.min_generation = 80;
    // CPUs and memory per task: 1-8 CPUs and 2-32 GB per GPU (hosts have 6 and 24), so
    // some tasks are held back by CPUs or memory rather than GPUs.
    const double gpus = j.gpu_milli < 1000 ? 1.0 : j.gpus_per_task;
    j.cpu_milli = static_cast<std::uint32_t>(gpus * 1000 * static_cast<double>(rng.uniform_int(1, 8)));
    j.mem_mib = static_cast<std::uint32_t>(gpus * 1024 * static_cast<double>(2 << rng.uniform_int(0, 4)));
    if (rng.uniform() < 0.2) {
      // A job without GPUs.
      j.gpus_per_task = 0;
      j.tasks = std::min(j.tasks, 2u);  // two CPU-only hosts: at most two tasks of 40 CPUs fit
      j.gpu_milli = 1000;
      j.model.clear();
      j.min_generation = 0;
      j.cpu_milli = 1000 * cpu_job_cpus[rng.uniform_int(0, 4)];
      j.mem_mib = 1024 * static_cast<std::uint32_t>(rng.uniform_int(1, 64));
    }
    jobs.push_back(j);
  }
  return jobs;
}

// A second small cluster: two racks of mixed hosts (V100 of 4 and 2 GPUs, A100 of 8, one
// H200 host of 2), 26 GPUs.
ClusterSpec mixed_cluster() {
  ClusterSpec spec;
  spec.name = "mixed";
  spec.racks.push_back(RackSpec{"a", 1, {{2, 4, kV100, 12.5}, {1, 8, kA100, 25}}, 0, 1});
  spec.racks.push_back(RackSpec{"b", 1, {{1, 2, kV100, 12.5}, {1, 8, kA100, 25}, {1, 2, kH200, 50}}, 0, 1});
  return spec;
}

// The cluster with CPUs and memory: 6 CPUs and 24 GB per GPU on GPU hosts, and a rack of two
// CPU-only hosts of 48 CPUs and 192 GB.
ClusterSpec with_cpus(ClusterSpec spec) {
  for (auto& r : spec.racks)
    for (auto& g : r.hosts) {
      g.cpu_milli = g.gpus * 6000u;
      g.mem_mib = g.gpus * 24u * 1024;
    }
  spec.racks.push_back(RackSpec{"cpu", 1, {{2, 0, 0, 12.5, 48000, 192 * 1024}}, 0, 1});
  return spec;
}

bool contains(const std::vector<std::string>& v, const char* name) {
  return std::find(v.begin(), v.end(), name) != v.end();
}

ModelMask requested_of(const JobRow& j, const GpuCatalog& catalog) {
  ModelMask m = 0;
  if (j.model.empty()) {
    m = catalog.all();
  } else {
    std::size_t start = 0;
    for (;;) {
      auto bar = j.model.find('|', start);
      m |= ModelMask{1} << *catalog.find(j.model.substr(start, bar == std::string::npos ? bar : bar - start));
      if (bar == std::string::npos) break;
      start = bar + 1;
    }
  }
  for (ModelId id = 0; id < catalog.size(); ++id)
    if (catalog.model(id).generation < j.min_generation) m &= ~(ModelMask{1} << id);
  return m;
}

// Injected failures for one run: whole hosts down for a while (never overlapping on one
// host) and single GPUs, at random instants within the workload's span.
std::vector<lifecycle::FailureEvent> random_failures(std::uint64_t seed, const ClusterSpec& spec, double span_s) {
  GpuCatalog catalog = small_catalog();
  Topology topo(spec, catalog);
  engine::Rng rng(seed * 7919 + 17);
  std::vector<lifecycle::FailureEvent> out;
  std::vector<engine::Time> free_from(topo.hosts().size(), 0);
  for (int i = 0; i < 8; ++i) {
    lifecycle::FailureEvent f;
    f.at = engine::from_seconds(std::round(rng.uniform() * span_s));
    f.host = static_cast<HostId>(rng.uniform_int(0, static_cast<std::int64_t>(topo.hosts().size()) - 1));
    f.gpu = i % 2 ? static_cast<std::uint16_t>(rng.uniform_int(0, 7)) : lifecycle::kWholeHost;
    f.down_for = engine::from_seconds(static_cast<double>(rng.uniform_int(20, 200)));
    if (f.at < free_from[f.host]) continue;
    free_from[f.host] = f.at + f.down_for + 1;
    out.push_back(f);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
  return out;
}

SimOptions lifecycle_on(std::uint64_t seed, const ClusterSpec& spec, const std::vector<JobRow>& jobs) {
  SimOptions o;
  o.lifecycle.checkpoint_set = true;
  o.lifecycle.checkpoint = {engine::from_seconds(30), engine::from_seconds(5), engine::from_seconds(10)};
  o.lifecycle.grace = engine::from_seconds(8);
  o.lifecycle.max_retries = 1;
  o.failures = random_failures(seed, spec, jobs.back().submit_s);
  return o;
}

// Checks one finished run against the invariants.
void check_run(const SimRun& r, const sched::SchedulerConfig& c, const std::vector<JobRow>& jobs) {
  const bool gang_admission = contains(c.admission, "gang");
  const bool same_gen = contains(c.filters, "same-generation");
  const bool gpu_model = contains(c.filters, "gpu-model");
  const bool gpu_hosts_kept = contains(c.filters, "gpu-hosts-for-gpu-jobs");
  CHECK(r.observer.violations() == 0);
  CHECK(r.observer.pools_over_limit() == 0);
  CHECK(r.observer.held_at_end() == 0);
  CHECK(r.observer.running_mismatches() == 0);
  CHECK(r.observer.bad_first_flags() == 0);
  for (const auto& e : r.observer.lifecycle_errors()) FAIL_CHECK(e);
  CHECK(r.collector.run_gpu_seconds() == doctest::Approx(r.collector.integral_gpu_seconds()).epsilon(1e-9));
  REQUIRE(r.observer.jobs().size() == jobs.size());
  std::size_t finished = 0, failed = 0, dropped = 0;
  for (workload::JobId id = 0; id < jobs.size(); ++id) {
    const auto& spec = jobs[id];
    const auto& l = r.job(id);
    CAPTURE(id);
    CHECK(l.submits + l.drops == 1);
    if (l.drops) {
      ++dropped;
      CHECK_FALSE(l.drop_reason.empty());
      // A job without GPUs fits a CPU-only host (48 CPUs, 192 GB) and is never dropped.
      CHECK(spec.gpus_per_task > 0);
      CHECK(l.starts.empty());
      CHECK(l.done == 0);
      continue;
    }
    // Ended exactly once, with a status.
    CHECK(l.finishes + l.fails == 1);
    CHECK(l.done == l.finishes);
    if (l.fails) {
      ++failed;
      CHECK(l.final_life.state == sched::JobState::failed);
    } else {
      ++finished;
      CHECK(l.final_life.state == sched::JobState::finished);
    }
    // Attained GPU-seconds equal the integral of the job's allocation.
    CHECK(l.final_life.attained_gpu_us == doctest::Approx(l.held_milli_us / 1000.0).epsilon(1e-9));
    CHECK(l.restarts <= l.stops);
    // The final attempt's runs: those started after the last stop.
    std::size_t tasks = 0, runs = 0;
    ModelMask models = 0;
    for (std::size_t i = l.runs_before_last_stop; i < l.placements.size(); ++i) {
      ++runs;
      tasks += l.placements[i].tasks.size();
      models |= l.placements[i].models(r.topo);
    }
    if (l.finishes) CHECK(tasks == spec.tasks);
    // A gang under gang admission starts whole: one run per attempt.
    if (gang_admission && spec.gang) CHECK(l.starts.size() <= static_cast<std::size_t>(l.stops) + 1);
    if (gang_admission && spec.gang && l.finishes) CHECK(runs == 1);
    if (same_gen && spec.tasks * spec.gpus_per_task > 1) {
      std::vector<int> gens;
      for (ModelId m = 0; m < r.catalog.size(); ++m)
        if (models >> m & 1) gens.push_back(r.catalog.model(m).generation);
      std::sort(gens.begin(), gens.end());
      CHECK(std::unique(gens.begin(), gens.end()) - gens.begin() <= 1);
    }
    if (gpu_model && spec.gpus_per_task > 0) CHECK((models & ~requested_of(spec, r.catalog)) == 0);
    if (spec.gpus_per_task == 0) {
      CHECK(models == 0);  // its tasks hold no GPU
      for (std::size_t i = 0; i < l.placements.size(); ++i)
        for (const auto& t : l.placements[i].tasks)
          if (gpu_hosts_kept) CHECK(r.topo.host(t.host).gpus == 0);
    }
  }
  CHECK(finished + failed + dropped == jobs.size());
}

}  // namespace

// Sanitized builds (scripts/test.sh runs the suite again under ASan and UBSan, ~10x slower)
// run every 7th combination: 7 is prime to every part count, so every part still runs, in
// other company. The Release build runs them all.
#if defined(__SANITIZE_ADDRESS__)
constexpr std::size_t kCombinationStride = 7;
#else
constexpr std::size_t kCombinationStride = 1;
#endif

TEST_CASE("Sched.Conformance.every_registered_combination_keeps_the_invariants") {
  const auto combos = every_combination();
  // 8 queues x 3 admission sets x 4 filter sets x 4 placements x 3 preemptions x 3
  // backfills, today; the count grows by itself as parts are registered.
  CHECK(combos.size() >= 96);
  const std::vector<std::pair<const char*, ClusterSpec>> clusters = {{"hetero", with_cpus(hetero_cluster())},
                                                                     {"mixed", with_cpus(mixed_cluster())}};
  std::size_t runs = 0;
  for (std::uint64_t seed : {1, 2}) {
    const auto jobs = random_jobs(seed, 40);
    for (const auto& [name, spec] : clusters) {
      // Seed 1 as the classic simulators run (nothing stops but by preemption, which is
      // free); seed 2 with checkpoint costs, a grace period and host and GPU failures.
      const SimOptions options = seed == 1 ? SimOptions{} : lifecycle_on(seed, spec, jobs);
      for (std::size_t i = 0; i < combos.size(); i += kCombinationStride) {
        const auto& c = combos[i];
        INFO("seed ", seed, " cluster ", name, " policy ", label(c));
        SimRun r(spec, c, jobs, options);
        check_run(r, c, jobs);
        ++runs;
      }
    }
  }
  CHECK(runs == (combos.size() + kCombinationStride - 1) / kCombinationStride * 4);
}

TEST_CASE("Sched.Conformance.with_pools_every_queue_and_placement_keeps_the_invariants") {
  // Two elastic pools (8 GPUs reserved each, one capped at 12), jobs dealt over them by a
  // seeded hash of their ids, entitlements every 30 s, reclaim after one period over; with
  // checkpoint costs, a grace period and failures, so that reclaims meet saves and failures.
  pools::PoolsConfig pools;
  pools.enabled = true;
  pools::PoolSpec a, b;
  a.name = "a";
  a.reservation = {8, 0, 0};
  b.name = "b";
  b.reservation = {8, 0, 0};
  b.limit[0] = 12;
  pools.pools = {a, b};
  pools::PoolRule spread;
  spread.on = pools::PoolRule::On::job;
  spread.spread = {"a", "b"};
  pools.rules = {spread};
  pools.period = engine::from_seconds(30);
  pools.sustained_periods = 1;
  const auto& r = sched::builtin_parts();
  std::size_t runs = 0, reclaimed = 0, at_limit = 0;
  const auto jobs = random_jobs(3, 40);
  for (const auto& [name, spec] : std::vector<std::pair<std::string, ClusterSpec>>{
           {"hetero", with_cpus(hetero_cluster())}, {"mixed", with_cpus(mixed_cluster())}}) {
    SimOptions options = lifecycle_on(3, spec, jobs);
    options.pools = &pools;
    std::size_t i = 0;
    for (const auto& q : r.queues.names())
      for (const auto& p : r.placements.names())
        for (const char* pre : {"none", "pool-reclaim"}) {
          if (i++ % kCombinationStride) continue;
          sched::SchedulerConfig c;
          c.queue = q;
          c.admission = {"gang", "pools"};
          c.filters = {"gpu-model"};
          c.placement = p;
          c.preemption = pre;
          INFO("cluster ", name, " policy ", label(c));
          SimRun run(spec, c, jobs, options);
          check_run(run, c, jobs);
          reclaimed += run.stats.preemptions;
          at_limit += run.observer.pools_at_limit();
          ++runs;
        }
  }
  CHECK(runs > 0);
  CHECK(reclaimed > 0);  // the workload is one that reclaims
  CHECK(at_limit > 0);   // and one that presses b against its limit
}

TEST_CASE("Sched.Conformance.with_services_and_cron_every_queue_placement_and_preemption_keeps_the_invariants") {
  // Beside the random rows: a service of two 1-GPU instances scaled to four and back to one
  // (relaunched after a backoff when a failure takes an instance), a cron entry of 2 GPUs
  // every 60 s that may overlap itself, and a child entry that waits for it and skips while
  // its previous occurrence is still there; with checkpoint costs, a grace period and failures.
  workload::ServiceSpec web;
  web.name = "web";
  web.instances = 2;
  web.shape.gpus_per_task = 1;
  web.shape.cpu_given = web.shape.mem_given = true;
  web.stop = engine::from_seconds(900);
  web.scale = {{engine::from_seconds(200), 4}, {engine::from_seconds(500), 1}};
  web.backoff = engine::from_seconds(5);
  workload::CronSpec etl;
  etl.name = "etl";
  etl.shape.gpus_per_task = 2;
  etl.shape.cpu_given = etl.shape.mem_given = true;
  etl.duration = engine::from_seconds(45);
  etl.schedule_text = "R8/2026-01-05T00:00:30Z/PT60S";
  etl.schedule = workload::parse_chronos_schedule(etl.schedule_text);
  workload::CronSpec report = etl;
  report.name = "report";
  report.shape.gpus_per_task = 1;
  report.duration = engine::from_seconds(70);
  report.parents = {"etl"};
  report.skip_overlap = true;
  workload::LongRunningWork work;
  work.services = {web};
  work.cron = {etl, report};
  work.epoch_us = workload::parse_iso_datetime_us("2026-01-05T00:00:00Z");
  const auto& r = sched::builtin_parts();
  const auto jobs = random_jobs(4, 40);
  std::size_t runs = 0, preempted = 0, restarts = 0, cron_started = 0;
  for (const auto& [name, spec] : std::vector<std::pair<std::string, ClusterSpec>>{
           {"hetero", with_cpus(hetero_cluster())}, {"mixed", with_cpus(mixed_cluster())}}) {
    SimOptions options = lifecycle_on(4, spec, jobs);
    options.long_running = &work;
    std::size_t i = 0;
    for (const auto& q : r.queues.names())
      for (const auto& p : r.placements.names())
        for (const auto& pre : without_pool_parts(r.preemptions.names())) {
          if (i++ % kCombinationStride) continue;
          sched::SchedulerConfig c;
          c.queue = q;
          c.admission = {"gang"};
          c.placement = p;
          c.preemption = pre;
          INFO("cluster ", name, " policy ", label(c));
          SimRun run(spec, c, jobs, options);
          CHECK(run.observer.violations() == 0);
          CHECK(run.observer.held_at_end() == 0);
          CHECK(run.observer.running_mismatches() == 0);
          for (const auto& e : run.observer.lifecycle_errors()) FAIL_CHECK(e);
          CHECK(run.collector.run_gpu_seconds() == doctest::Approx(run.collector.integral_gpu_seconds()).epsilon(1e-9));
          // The rows, the service's four instances and the cron occurrences: each ends once or
          // is dropped once (a skipped occurrence is dropped, with its reason).
          CHECK(run.observer.jobs().size() > jobs.size() + 4);
          for (const auto& [id, l] : run.observer.jobs()) {
            CAPTURE(id);
            CHECK(l.submits + l.drops == 1);
            if (l.drops) CHECK_FALSE(l.drop_reason.empty());
            else CHECK(l.finishes + l.fails == 1);
            restarts += l.restarts;
          }
          REQUIRE(run.services.size() == 1);
          CHECK(run.services[0].availability >= 0);
          CHECK(run.services[0].availability <= 1);
          CHECK(run.services[0].instances_max == 4);
          REQUIRE(run.cron.size() == 2);
          for (const auto& f : run.cron) {
            CHECK(f.occurrences == 8);
            CHECK(f.started + f.skipped + f.dropped <= f.occurrences);
            cron_started += f.started;
          }
          preempted += run.stats.preemptions;
          ++runs;
        }
  }
  CHECK(runs > 0);
  CHECK(cron_started > 0);
  CHECK(preempted > 0);  // preemption meets services and cron jobs
  CHECK(restarts > 0);   // and failures do
}

TEST_CASE("Sched.Conformance.failures_strike_running_jobs_and_some_run_out_of_retries") {
  // Guards the lifecycle half of the suite against becoming vacuous.
  std::size_t stops = 0, fails = 0, restarts = 0;
  for (std::uint64_t seed : {2, 3, 4, 5})
    for (const auto& spec : {with_cpus(hetero_cluster()), with_cpus(mixed_cluster())}) {
      const auto jobs = random_jobs(seed, 40);
      SimRun r(spec, scheduler_config("best-fit"), jobs, lifecycle_on(seed, spec, jobs));
      for (const auto& [id, l] : r.observer.jobs()) {
        stops += l.stops;
        fails += l.fails;
        restarts += l.restarts;
      }
      CHECK(r.stats.failures >= 3);
    }
  CHECK(stops >= 4);
  CHECK(restarts >= 2);
  CHECK(fails >= 1);
}

TEST_CASE("Sched.Conformance.workloads_exercise_what_the_invariants_are_about") {
  // Guards the suite against becoming vacuous: the random workloads must contain gangs,
  // non-gang multi-task jobs, shares, model requests, jobs without GPUs and at least one job
  // dropped.
  std::size_t gangs = 0, loose = 0, shares = 0, requests = 0, cpu_jobs = 0;
  for (std::uint64_t seed : {1, 2, 3})
    for (const auto& j : random_jobs(seed, 40)) {
      gangs += j.gang && j.tasks > 1;
      loose += !j.gang && j.tasks > 1;
      shares += j.gpu_milli < 1000;
      requests += !j.model.empty();
      cpu_jobs += j.gpus_per_task == 0;
    }
  CHECK(gangs >= 5);
  CHECK(loose >= 5);
  CHECK(shares >= 5);
  CHECK(requests >= 10);
  CHECK(cpu_jobs >= 10);
  const auto jobs = random_jobs(1, 40);
  SimRun r(with_cpus(hetero_cluster()), scheduler_config("best-fit", {"gang"}, {"gpu-model", "same-generation"}), jobs);
  std::size_t waited = 0, cpu_on_gpu_hosts = 0, cpu_bound = 0;
  for (const auto& [id, l] : r.observer.jobs()) {
    const auto& j = jobs[id];
    if (!l.starts.empty() && l.starts.front() > engine::from_seconds(j.submit_s)) ++waited;
    if (j.gpus_per_task == 0)
      for (const auto& p : l.placements)
        for (const auto& t : p.tasks) cpu_on_gpu_hosts += r.topo.host(t.host).gpus > 0;
    // Ran, asking more CPUs per GPU than hosts have: a host could not give it all its GPUs.
    if (j.gpus_per_task > 0 && j.gpu_milli == 1000 && j.cpu_milli > j.gpus_per_task * 6000u && l.finishes) ++cpu_bound;
  }
  CHECK(waited >= 3);  // the cluster is loaded enough that jobs queue
  CHECK(cpu_on_gpu_hosts >= 1);  // without the filter, jobs without GPUs use GPU hosts' CPUs
  CHECK(cpu_bound >= 3);
}


TEST_CASE("Sched.Conformance.gavel_policies_keep_the_invariants") {
  // Gavel's decision step (sched/gavel/gavel_step.h) with every placement, on both clusters,
  // with and without checkpoint costs and failures. Gavel allocates whole GPUs: the workload
  // is the random one without its CPU-only jobs (shares and gangs larger than any one GPU type
  // are dropped at submit, with a reason). The trace perf model gives a uniform matrix.
  const auto& r = sched::builtin_parts();
  std::size_t runs = 0;
  for (std::uint64_t seed : {1, 2}) {
    auto jobs = random_jobs(seed, 40);
    std::erase_if(jobs, [](const JobRow& j) { return j.gpus_per_task == 0; });
    for (const auto& [name, spec] : std::vector<std::pair<const char*, ClusterSpec>>{
             {"hetero", with_cpus(hetero_cluster())}, {"mixed", with_cpus(mixed_cluster())}}) {
      const SimOptions options = seed == 1 ? SimOptions{} : lifecycle_on(seed, spec, jobs);
      for (const char* policy : {"gavel-max-min-fairness", "gavel-finish-time-fairness"})
        for (const auto& p : r.placements.names()) {
          auto c = scheduler_config(p, {"gang"}, {"gpu-model"});
          c.policy = policy;
          c.args[policy].values["round_s"] = util::ArgValue{"60", 1};
          INFO("seed ", seed, " cluster ", name, " policy ", policy, " placement ", p);
          SimRun run(spec, c, jobs, options);
          check_run(run, c, jobs);
          std::size_t finished = 0;
          for (const auto& [id, l] : run.observer.jobs()) finished += l.finishes;
          CHECK(finished >= jobs.size() / 2);
          ++runs;
        }
    }
  }
  CHECK(runs == 2 * 2 * 2 * r.placements.names().size());
}
