// CPUs and memory in the scheduler: every placement fits a task's CPUs and memory beside its
// GPUs, jobs without GPUs are placed by free CPUs, drops name the CPUs or memory a task
// lacks, and the filter gpu-hosts-for-gpu-jobs (Mesos GPU isolation) on its own and in the
// scheduler.
#include <doctest/doctest.h>

#include "sched/scheduler.h"
#include "sched_fixtures.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::cluster;
using namespace schedlab::testing;

namespace {
constexpr ModelMask model_bit(ModelId m) { return ModelMask{1} << m; }

// Rack g: hosts 0-3, 4 x V100 each, 16 CPUs, 64 GB. Rack c: hosts 4-5 without GPUs, 32 CPUs,
// 128 GB. Host 0 keeps 2 GPUs and 2 CPUs, host 1 3 GPUs and 12 CPUs, host 3 4 GPUs and 8 CPUs
// with 8 GB: hosts 0 and 3 have GPUs their CPUs or memory cannot feed.
struct CpuHosts {
  GpuCatalog catalog = small_catalog();
  Topology topo{spec(), catalog};
  AllocationState alloc{topo};
  CpuHosts() {
    alloc.take(TaskSlot{0, 2, 0, 0, 14000, 1024});
    alloc.take(TaskSlot{1, 1, 0, 0, 4000, 1024});
    alloc.take(TaskSlot{3, 0, 0, 0, 8000, 56 * 1024});
  }
  static ClusterSpec spec() {
    ClusterSpec s;
    s.name = "cpu-hosts";
    s.racks.push_back(RackSpec{"g", 1, {{4, 4, kV100, 12.5, 16000, 64 * 1024}}, 0, 1});
    s.racks.push_back(RackSpec{"c", 1, {{2, 0, 0, 12.5, 32000, 128 * 1024}}, 0, 1});
    return s;
  }
};

workload::JobSpec with_cpus(workload::JobSpec s, double cpus, double mem_gb) {
  s.cpu_milli = static_cast<std::uint32_t>(cpus * 1000);
  s.mem_mib = static_cast<std::uint32_t>(mem_gb * 1024);
  return s;
}

// A scheduler over a cluster, jobs submitted by hand.
struct CpuBench {
  GpuCatalog catalog = small_catalog();
  Topology topo;
  AllocationState alloc;
  sched::Scheduler scheduler;
  std::vector<workload::JobSpec> specs;  // reserved: the scheduler keeps pointers

  CpuBench(const ClusterSpec& spec, const sched::SchedulerConfig& config)
      : topo(spec, catalog), alloc(topo), scheduler(config, sched::builtin_parts(), topo) {
    specs.reserve(64);
  }
  std::optional<std::string> submit(workload::JobSpec s, engine::Time now = 0) {
    s.id = static_cast<workload::JobId>(specs.size());
    s.submit = now;
    specs.push_back(s);
    return scheduler.submit(specs.back(), catalog.all(), now);
  }
  std::vector<sched::StartDecision> run(engine::Time now = 0) {
    std::vector<sched::StartDecision> starts;
    scheduler.schedule(now, alloc, starts);
    return starts;
  }
};

sched::SchedulerConfig with_filter(const std::string& placement, const std::string& unless_idle_s) {
  auto c = scheduler_config(placement, {"gang"}, {"gpu-model", "gpu-hosts-for-gpu-jobs"});
  if (!unless_idle_s.empty()) c.args["gpu-hosts-for-gpu-jobs"].values["unless_idle_s"] = util::ArgValue(unless_idle_s);
  return c;
}
}  // namespace

TEST_CASE("Sched.Placement.every_placement_fits_cpus_and_memory_beside_gpus") {
  const ModelMask gpus = model_bit(kV100);
  struct Case {
    const char* placement;
    std::uint32_t tasks, gpus;
    double cpus, mem_gb;
    const char* expected;
  };
  const Case cases[] = {
      // 1 GPU and 4 CPUs: host 0 (2 free GPUs, 2 CPUs) cannot; the next host in each order can.
      {"first-fit", 1, 1, 4, 1, "h1:1"},
      {"best-fit", 1, 1, 4, 1, "h1:1"},
      {"spread", 1, 1, 4, 1, "h2:1"},
      {"rack-pack", 1, 1, 4, 1, "h1:1"},
      // GPUs alone: host 0 is the first and the tightest.
      {"first-fit", 1, 1, 0, 0, "h0:1"},
      {"best-fit", 1, 1, 0, 0, "h0:1"},
      // Memory: host 3 has 4 GPUs and 8 CPUs but 8 GB left.
      {"best-fit", 2, 4, 8, 16, "h2:4"},
      {"best-fit", 2, 4, 8, 8, "h2:4 h3:4"},
      // As many tasks per host as its CPUs allow: host 1 has 3 GPUs and 12 CPUs.
      {"first-fit", 3, 1, 6, 1, "h1:1 h1:1 h2:1"},
      {"rack-pack", 2, 1, 6, 1, "h1:1 h1:1"},
      {"rack-pack", 3, 1, 6, 1, "h2:1 h2:1 h3:1"},  // one host cannot: the rack, emptiest hosts first
      {"spread", 2, 1, 12, 1, "h2:1 h1:1"},
      {"first-fit", 1, 1, 17, 1, ""},  // no host has 17 CPUs
  };
  for (const auto& c : cases) {
    CAPTURE(std::string(c.placement));
    CAPTURE(c.tasks);
    CAPTURE(c.cpus);
    CpuHosts f;
    auto s = with_cpus(spec_of(c.tasks, c.gpus), c.cpus, c.mem_gb);
    const auto slots = place_with(c.placement, s, f.alloc, gpus);
    CHECK(slots_text(slots) == std::string(c.expected));
    for (const auto& t : slots) CHECK((t.cpu_milli == s.cpu_milli && t.mem_mib == s.mem_mib));
    for (HostId h = 0; h < f.topo.hosts().size(); ++h) CHECK(f.alloc.free_cpu_milli(h) <= f.topo.host(h).cpu_milli);
  }
}

TEST_CASE("Sched.Placement.jobs_without_gpus_go_by_free_cpus") {
  // Free CPUs: h0 2, h1 12, h2 16, h3 8, h4 32, h5 32 (h4, h5 without GPUs).
  const ModelMask any = model_bit(kV100) | kHostsWithoutGpus;
  struct Case {
    const char* placement;
    ModelMask allowed;
    std::uint32_t tasks;
    double cpus;
    const char* expected;
  };
  const Case cases[] = {
      {"first-fit", any, 1, 4, "h1:0"},               // lowest host with 4 CPUs
      {"first-fit", any, 4, 4, "h1:0 h1:0 h1:0 h2:0"},  // filled, then the next
      {"best-fit", any, 1, 4, "h3:0"},                // leaves the fewest CPUs (8 - 4)
      {"best-fit", any, 1, 13, "h2:0"},
      {"spread", any, 3, 4, "h4:0 h5:0 h2:0"},        // most free CPUs, a new host each time
      {"rack-pack", any, 2, 6, "h1:0 h1:0"},          // one host with 12 CPUs, the tightest
      {"best-fit", kHostsWithoutGpus, 1, 4, "h4:0"},  // only the hosts without GPUs
      {"best-fit", model_bit(kV100), 1, 20, ""},      // no GPU host has 20 CPUs
  };
  for (const auto& c : cases) {
    CAPTURE(std::string(c.placement));
    CAPTURE(c.tasks);
    CpuHosts f;
    auto s = with_cpus(spec_of(c.tasks, 0), c.cpus, 1);
    const auto slots = place_with(c.placement, s, f.alloc, c.allowed);
    CHECK(slots_text(slots) == std::string(c.expected));
    for (const auto& t : slots) CHECK((t.gpus == 0 && t.milli == 0));
  }
}

TEST_CASE("Sched.Scheduler.drops_name_the_cpus_or_memory_a_task_lacks") {
  struct Case {
    std::uint32_t tasks, gpus;
    double cpus, mem_gb;
    const char* reason;  // empty: queued
  };
  const Case cases[] = {
      {1, 4, 16, 64, ""},
      {1, 4, 17, 1, "unresolvable: a task needs 17 CPUs on one host; the largest allowed host with the GPUs has 16"},
      {1, 1, 4, 65, "unresolvable: a task needs 65 GB of memory on one host; the largest allowed host with the GPUs "
                    "has 64 GB"},
      {8, 2, 8, 1, ""},  // two per host, four hosts
      {9, 2, 8, 1, "unresolvable: needs 9 tasks x 2 GPUs; the cluster fits at most 8"},
      {1, 0, 32, 1, ""},  // a CPU-only host has 32
      {1, 0, 32.5, 1, "unresolvable: a task needs 32.5 CPUs on one host; the largest allowed host has 32"},
      {8, 0, 16, 1, ""},  // one per GPU host, two per CPU-only host
      {9, 0, 16, 1, "unresolvable: needs 9 tasks x 16 CPUs; the cluster fits at most 8"},
      {1, 0, 0, 1, "unresolvable: needs no GPU and no CPU"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.tasks);
    CAPTURE(c.cpus);
    CpuBench b(CpuHosts::spec(), scheduler_config("best-fit"));
    auto why = b.submit(with_cpus(spec_of(c.tasks, c.gpus), c.cpus, c.mem_gb));
    if (*c.reason) {
      REQUIRE(why.has_value());
      CHECK(*why == c.reason);
    } else {
      CHECK_FALSE(why.has_value());
    }
  }
}

TEST_CASE("Sched.Scheduler.a_job_without_gpus_starts_when_no_gpu_is_free") {
  CpuBench b(CpuHosts::spec(), scheduler_config("best-fit"));
  for (HostId h = 0; h < 4; ++h) b.alloc.take(TaskSlot{h, 4, 0, 0, 1000, 1024});
  REQUIRE_FALSE(b.submit(with_cpus(spec_of(1, 1), 1, 1)));  // waits: no GPU free
  REQUIRE_FALSE(b.submit(with_cpus(spec_of(2, 0), 4, 4)));
  auto starts = b.run();
  // Strict order: the GPU job blocks. Behind it nothing starts.
  CHECK(starts.empty());
  CpuBench greedy(CpuHosts::spec(), scheduler_config("best-fit", {"gang"}, {"gpu-model"}, "greedy"));
  for (HostId h = 0; h < 4; ++h) greedy.alloc.take(TaskSlot{h, 4, 0, 0, 1000, 1024});
  REQUIRE_FALSE(greedy.submit(with_cpus(spec_of(1, 1), 1, 1)));
  REQUIRE_FALSE(greedy.submit(with_cpus(spec_of(2, 0), 4, 4)));
  starts = greedy.run();
  REQUIRE(starts.size() == 1);  // the scan goes on although no GPU is free
  CHECK(starts[0].job == 1);
  CHECK(slots_text(starts[0].slots) == "h0:0 h0:0");  // the tightest: 15 CPUs left on host 0
}

TEST_CASE("Sched.Filter.gpu_hosts_for_gpu_jobs_on_its_own") {
  auto catalog = small_catalog();
  Topology topo(CpuHosts::spec(), catalog);
  AllocationState alloc(topo);
  const ModelMask all = topo.models_present();
  auto cpu_job = with_cpus(spec_of(1, 0), 4, 1);
  auto gpu_job = spec_of(1, 1);
  gpu_job.id = 1;
  SUBCASE("unless_idle_s 0 (the default): never on a host with GPUs") {
    auto f = sched::builtin_parts().filters.make("gpu-hosts-for-gpu-jobs", {});
    CHECK(f->allowed(pending(cpu_job), all, topo) == kHostsWithoutGpus);
    CHECK(f->allowed(pending(gpu_job), all, topo) == all);  // GPU jobs are not touched
    CHECK_FALSE(f->watches_queue());
  }
  SUBCASE("unless_idle_s 60: GPU hosts lend their CPUs while no GPU job has waited over 60 s") {
    auto f = sched::builtin_parts().filters.make("gpu-hosts-for-gpu-jobs", {{"unless_idle_s", "60"}});
    REQUIRE(f->watches_queue());
    CHECK(f->allowed(pending(cpu_job), all, topo) == all);
    struct Case {
      double now_s;
      bool gpu_job_waiting;
      ModelMask expected;
    };
    const Case cases[] = {
        {1000, false, all},              // nobody waits
        {1000, true, kHostsWithoutGpus},  // the GPU job has waited 990 s
        {70, true, all},                  // 60 s exactly: not longer
        {70.000001, true, kHostsWithoutGpus},
    };
    for (const auto& c : cases) {
      CAPTURE(c.now_s);
      auto waiting = pending(gpu_job);
      waiting.waiting_since = sec(10);
      if (c.gpu_job_waiting) f->job_waiting(waiting);
      sched::SchedContext ctx{topo, alloc, sec(c.now_s)};
      CHECK(f->allowed_now(pending(cpu_job), all, ctx) == c.expected);
      CHECK(f->allowed_now(pending(gpu_job), all, ctx) == all);
      if (c.gpu_job_waiting) f->job_not_waiting(waiting);
    }
    // A CPU job waiting does not count.
    auto other_cpu = cpu_job;
    other_cpu.id = 7;
    f->job_waiting(pending(other_cpu));
    CHECK(f->allowed_now(pending(cpu_job), all, sched::SchedContext{topo, alloc, sec(5000)}) == all);
  }
  SUBCASE("bad args") {
    CHECK_THROWS_WITH_AS(sched::builtin_parts().filters.make("gpu-hosts-for-gpu-jobs", {{"unless_idle", "5"}}),
                         doctest::Contains("did you mean 'unless_idle_s'?"), util::InputError);
    CHECK_THROWS_WITH_AS(sched::builtin_parts().filters.make("gpu-hosts-for-gpu-jobs", {{"unless_idle_s", "-5"}}),
                         doctest::Contains("unless_idle_s"), util::InputError);
  }
}

TEST_CASE("Sched.Filter.gpu_hosts_for_gpu_jobs_in_the_scheduler") {
  SUBCASE("a job without GPUs runs on a CPU-only host, never on a GPU host") {
    CpuBench b(CpuHosts::spec(), with_filter("best-fit", ""));
    REQUIRE_FALSE(b.submit(with_cpus(spec_of(3, 0), 16, 1)));
    auto starts = b.run();
    REQUIRE(starts.size() == 1);
    CHECK(slots_text(starts[0].slots) == "h4:0 h4:0 h5:0");
  }
  SUBCASE("and waits when those are full, though GPU hosts have CPUs") {
    CpuBench b(CpuHosts::spec(), with_filter("best-fit", ""));
    b.alloc.take(TaskSlot{4, 0, 0, 0, 30000, 1024});
    b.alloc.take(TaskSlot{5, 0, 0, 0, 30000, 1024});
    REQUIRE_FALSE(b.submit(with_cpus(spec_of(1, 0), 4, 1)));
    CHECK(b.run().empty());
  }
  SUBCASE("on a cluster without CPU-only hosts it is dropped with its reason") {
    CpuBench b(uniform_cluster(1, 2, 4), with_filter("best-fit", ""));
    auto why = b.submit(with_cpus(spec_of(1, 0), 1, 0));
    REQUIRE(why.has_value());
    CHECK(why->find("no host may take it") != std::string::npos);
  }
}

TEST_CASE("Sched.Filter.gpu_hosts_for_gpu_jobs_lends_spare_cpus_while_gpu_work_is_not_kept_waiting") {
  auto config = with_filter("best-fit", "60");
  config.backfill = "greedy";
  for (double now_s : {30.0, 61.0}) {
    CAPTURE(now_s);
    CpuBench b(CpuHosts::spec(), config);
    b.alloc.take(TaskSlot{4, 0, 0, 0, 30000, 1024});
    b.alloc.take(TaskSlot{5, 0, 0, 0, 30000, 1024});
    b.alloc.take(TaskSlot{0, 4, 0, 0, 1000, 1024});
    b.alloc.take(TaskSlot{1, 4, 0, 0, 1000, 1024});
    b.alloc.take(TaskSlot{2, 4, 0, 0, 1000, 1024});
    REQUIRE_FALSE(b.submit(with_cpus(spec_of(2, 4), 1, 1), sec(0)));  // needs 8 GPUs, 4 free: waits
    REQUIRE_FALSE(b.submit(with_cpus(spec_of(1, 0), 4, 1), sec(now_s)));
    auto starts = b.run(sec(now_s));
    if (now_s < 60) {
      REQUIRE(starts.size() == 1);  // the GPU job has waited 30 s: host 3 lends its CPUs
      CHECK(slots_text(starts[0].slots) == "h0:0");  // the tightest in CPUs: 15 left on host 0
    } else {
      CHECK(starts.empty());  // it has waited 61 s: GPU hosts are kept for it
    }
  }
}
