// The scheduler's composition: gang vs incremental admission, the gpu-model and
// same-generation filters, dropping a job that can never fit, strict order and backfill,
// and the registry's lists and messages.
#include <doctest/doctest.h>

#include "sched/scheduler.h"
#include "sched_fixtures.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::cluster;
using namespace schedlab::testing;

namespace {
constexpr ModelMask bit(ModelId m) { return ModelMask{1} << m; }

struct Bench {
  GpuCatalog catalog = small_catalog();
  Topology topo;
  AllocationState alloc;
  sched::Scheduler scheduler;
  std::vector<workload::JobSpec> specs;  // reserved: the scheduler keeps pointers
  std::vector<sched::StartDecision> starts;

  Bench(const ClusterSpec& spec, const sched::SchedulerConfig& config)
      : topo(spec, catalog), alloc(topo), scheduler(config, sched::builtin_parts(), topo) {
    specs.reserve(64);
  }
  std::optional<std::string> submit(workload::JobSpec s, ModelMask requested = ~ModelMask{0}, engine::Time now = 0) {
    s.id = static_cast<workload::JobId>(specs.size());
    s.submit = now;
    specs.push_back(s);
    return scheduler.submit(specs.back(), requested & catalog.all(), now);
  }
  std::vector<sched::StartDecision> run(engine::Time now = 0) {
    starts.clear();
    scheduler.schedule(now, alloc, starts);
    return starts;
  }
};
}  // namespace

TEST_CASE("Sched.Admission.gang_starts_all_tasks_at_once_or_none") {
  // One host of 4 GPUs with 2 held: a 3-task gang of 1 GPU waits; an incremental job
  // starts 2 tasks now and keeps 1 waiting.
  for (const char* admission : {"gang", "incremental"}) {
    CAPTURE(admission);
    Bench b(uniform_cluster(1, 1, 4), scheduler_config("best-fit", {admission}));
    b.alloc.take(TaskSlot{0, 2, 0, 0});
    REQUIRE_FALSE(b.submit(spec_of(3, 1)));
    auto starts = b.run();
    if (std::string(admission) == "gang") {
      CHECK(starts.empty());
      CHECK(b.scheduler.pending() == 1);
      CHECK(b.alloc.whole_free(0) == 2);  // the failed attempt was rolled back
    } else {
      REQUIRE(starts.size() == 1);
      CHECK(starts[0].slots.size() == 2);
      CHECK_FALSE(starts[0].job_fully_started);
      CHECK(b.scheduler.pending() == 1);
      CHECK(b.scheduler.head()->tasks_left == 1);
      CHECK(b.alloc.whole_free(0) == 0);
    }
  }
}

TEST_CASE("Sched.Admission.gang_flag_off_starts_task_by_task_under_gang") {
  Bench b(uniform_cluster(1, 1, 4), scheduler_config("best-fit", {"gang"}));
  b.alloc.take(TaskSlot{0, 3, 0, 0});
  REQUIRE_FALSE(b.submit(spec_of(2, 1, 1000, /*gang=*/false)));
  auto starts = b.run();
  REQUIRE(starts.size() == 1);
  CHECK(starts[0].slots.size() == 1);
  CHECK_FALSE(starts[0].job_fully_started);
}

TEST_CASE("Sched.Admission.gang_whole_job_when_it_fits") {
  Bench b(uniform_cluster(2, 2, 4), scheduler_config("first-fit", {"gang"}));
  REQUIRE_FALSE(b.submit(spec_of(3, 4)));
  auto starts = b.run();
  REQUIRE(starts.size() == 1);
  CHECK(starts[0].slots.size() == 3);
  CHECK(starts[0].job_fully_started);
  CHECK(b.scheduler.pending() == 0);
  CHECK(b.alloc.free_gpus() == 4);
}

TEST_CASE("Sched.Admission.gang_reason_gives_numbers") {
  auto part = sched::builtin_parts().admissions.make("gang", {});
  auto catalog = small_catalog();
  Topology topo(uniform_cluster(1, 2, 4), catalog);
  AllocationState alloc(topo);
  alloc.take(TaskSlot{0, 3, 0, 0});
  auto s = spec_of(3, 2);
  auto job = pending(s, catalog.all());
  sched::SchedContext ctx{topo, alloc, 0};
  auto st = part->admit(job, ctx);
  CHECK(st.code == sched::Code::wait);
  CHECK(st.reason() == "gang needs 6 GPUs, 5 free");
  CHECK(part->all_or_nothing(job));
  auto inc = sched::builtin_parts().admissions.make("incremental", {});
  CHECK(inc->admit(job, ctx).is_ok());
  CHECK_FALSE(inc->all_or_nothing(job));
}

TEST_CASE("Sched.Filter.gpu_model_keeps_only_requested_models") {
  auto catalog = small_catalog();
  Topology topo(hetero_cluster(), catalog);
  auto f = sched::builtin_parts().filters.make("gpu-model", {});
  auto s = spec_of(1, 1);
  CHECK(f->allowed(pending(s, bit(kA100) | bit(kH100)), catalog.all(), topo) == (bit(kA100) | bit(kH100)));
  CHECK(f->allowed(pending(s, bit(kA100)), bit(kV100), topo) == 0);
  CHECK_FALSE(f->one_generation(pending(s)));
}

TEST_CASE("Sched.Filter.gpu_model_places_on_requested_hosts_only") {
  Bench b(hetero_cluster(), scheduler_config("first-fit", {"gang"}, {"gpu-model"}));
  REQUIRE_FALSE(b.submit(spec_of(1, 4), bit(kH200)));
  auto starts = b.run();
  REQUIRE(starts.size() == 1);
  CHECK(starts[0].slots[0].host == 6);  // the H200 host, though host 0 comes first
}

TEST_CASE("Sched.Filter.same_generation_groups_by_generation") {
  auto catalog = small_catalog();
  Topology topo(hetero_cluster(), catalog);
  auto f = sched::builtin_parts().filters.make("same-generation", {});
  auto one = spec_of(1, 1);
  auto two = spec_of(2, 1);
  auto share = spec_of(1, 1, 500);
  CHECK_FALSE(f->one_generation(pending(one)));  // a single GPU is trivially one generation
  CHECK(f->one_generation(pending(two)));
  CHECK_FALSE(f->one_generation(pending(share)));
  CHECK(f->allowed(pending(two), catalog.all(), topo) == catalog.all());
}

TEST_CASE("Sched.Filter.same_generation_never_mixes_but_may_use_two_models_of_one_generation") {
  // A gang of 2 x 4 GPUs. A100 hosts are busy but 4 A100 GPUs; the H100 and H200 hosts
  // (generation 90, two models) are free.
  SUBCASE("without the filter it spans generations") {
    Bench b(hetero_cluster(), scheduler_config("first-fit", {"gang"}, {"gpu-model"}));
    b.alloc.take(TaskSlot{3, 8, 0, 0});
    b.alloc.take(TaskSlot{4, 4, 0, 0});
    REQUIRE_FALSE(b.submit(spec_of(2, 4), bit(kA100) | bit(kH100)));
    auto starts = b.run();
    REQUIRE(starts.size() == 1);
    CHECK(slots_text(starts[0].slots) == "h4:4 h5:4");
  }
  SUBCASE("with it, the gang waits rather than mix A100 and H100") {
    Bench b(hetero_cluster(), scheduler_config("first-fit", {"gang"}, {"gpu-model", "same-generation"}));
    b.alloc.take(TaskSlot{3, 8, 0, 0});
    b.alloc.take(TaskSlot{4, 4, 0, 0});
    REQUIRE_FALSE(b.submit(spec_of(2, 4), bit(kA100) | bit(kH100)));
    CHECK(b.run().empty());
    CHECK(b.alloc.free_gpus() == 4 + 10 + 8);  // nothing held by the failed attempts
  }
  SUBCASE("H100 and H200 are one generation, newest generation first") {
    Bench b(hetero_cluster(), scheduler_config("first-fit", {"gang"}, {"same-generation"}));
    REQUIRE_FALSE(b.submit(spec_of(2, 4)));
    auto starts = b.run();
    REQUIRE(starts.size() == 1);
    CHECK(slots_text(starts[0].slots) == "h5:4 h6:4");
  }
}

TEST_CASE("Sched.Scheduler.drops_a_job_that_can_never_fit_with_numbers") {
  struct Case {
    std::vector<std::string> filters;
    std::uint32_t tasks, gpus;
    ModelMask requested;
    const char* reason;  // empty: the job is queued
  };
  const ModelMask any = ~ModelMask{0};
  const Case cases[] = {
      {{"gpu-model"}, 1, 16, any,
       "unresolvable: a task needs 16 GPUs on one host; the largest allowed host has 8"},
      {{"gpu-model"}, 1, 8, bit(kV100),
       "unresolvable: a task needs 8 GPUs on one host; the largest allowed host has 4"},
      {{"gpu-model"}, 5, 8, bit(kA100), "unresolvable: needs 5 tasks x 8 GPUs; the cluster fits at most 2"},
      {{"gpu-model"}, 8, 4, any, ""},  // 2 + 2 + 2 + 1 + 1 hosts' worth: 8 tasks of 4 fit
      {{"gpu-model"}, 9, 4, any, "unresolvable: needs 9 tasks x 4 GPUs; the cluster fits at most 8"},
      {{"same-generation"}, 6, 4, any,
       "unresolvable: needs 6 tasks x 4 GPUs of one generation; the cluster fits at most 4"},
      {{"same-generation"}, 4, 4, any, ""},
      {{"gpu-model"}, 1, 1, 0, "unresolvable: no GPU of the allowed model(s) in the cluster (requested none)"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.tasks);
    CAPTURE(c.gpus);
    Bench b(hetero_cluster(), scheduler_config("best-fit", {"gang"}, c.filters));
    auto why = b.submit(spec_of(c.tasks, c.gpus), c.requested);
    if (*c.reason) {
      REQUIRE(why.has_value());
      CHECK(*why == c.reason);
      CHECK(b.scheduler.pending() == 0);
    } else {
      CHECK_FALSE(why.has_value());
      CHECK(b.scheduler.pending() == 1);
    }
  }
}

TEST_CASE("Sched.Scheduler.drop_names_the_requested_model_absent_from_the_cluster") {
  Bench b(uniform_cluster(1, 2, 8, kV100), scheduler_config("best-fit"));
  auto why = b.submit(spec_of(1, 1), bit(kH200));
  REQUIRE(why.has_value());
  CHECK(*why == "unresolvable: no GPU of the allowed model(s) in the cluster (requested H200)");
}

TEST_CASE("Sched.Scheduler.strict_order_blocks_later_jobs_without_backfill") {
  // 8 GPUs, 6 held: a 4-GPU job at the head blocks a 1-GPU job behind it, unless EASY
  // backfill finds that the small job ends before the head's reservation.
  for (const char* backfill : {"none", "easy"}) {
    CAPTURE(backfill);
    Bench b(uniform_cluster(1, 2, 4), scheduler_config("best-fit", {"gang"}, {"gpu-model"}, backfill));
    b.alloc.take(TaskSlot{0, 4, 0, 0});
    b.alloc.take(TaskSlot{1, 2, 0, 0});
    auto head = spec_of(1, 4);
    auto small = spec_of(1, 1);
    small.duration = 10 * kMicrosPerSecond;
    REQUIRE_FALSE(b.submit(head, ~ModelMask{0}, 0));
    REQUIRE_FALSE(b.submit(small, ~ModelMask{0}, 1));
    auto starts = b.run(1);
    if (std::string(backfill) == "none") {
      CHECK(starts.empty());
    } else {
      // No running job is known to the scheduler, so the shadow time is "never" and any
      // job that fits may start.
      REQUIRE(starts.size() == 1);
      CHECK(starts[0].job == 1);
    }
  }
}

TEST_CASE("Sched.Registry.lists_names_and_unknown_names_list_the_valid_ones") {
  const auto& r = sched::builtin_parts();
  CHECK(r.queues.names() ==
        std::vector<std::string>{"fifo", "priority", "sjf", "srtf", "fair-share", "las", "gittins", "ftf"});
  CHECK(r.admissions.names() == std::vector<std::string>{"gang", "incremental", "pools"});
  CHECK(r.filters.names() == std::vector<std::string>{"gpu-model", "same-generation", "gpu-hosts-for-gpu-jobs"});
  CHECK(r.placements.names() == std::vector<std::string>{"first-fit", "best-fit", "rack-pack", "spread", "fgd"});
  CHECK(r.preemptions.names() == std::vector<std::string>{"none", "reorder", "priority", "pool-reclaim"});
  CHECK(r.backfills.names() == std::vector<std::string>{"none", "easy", "greedy"});
  CHECK_THROWS_WITH_AS(r.placements.make("bestfit", {}),
                       "unknown placement 'bestfit'; did you mean 'best-fit'? valid: first-fit, best-fit, rack-pack, "
                       "spread, fgd",
                       util::InputError);
  CHECK_THROWS_WITH_AS(r.backfills.make("easy", {{"max_scan", "0"}}),
                       "scheduler.args.easy.max_scan: '0' is not a positive integer", util::InputError);
  for (const auto& p : r.placements.items()) CHECK_FALSE(p.help.empty());
  CHECK(std::string(sched::code_name(sched::Code::unresolvable)) == "unresolvable");
}
