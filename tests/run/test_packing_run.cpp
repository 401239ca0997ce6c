// The packing experiment (workload.mode: packing) on the hand-worked case of
// tests/fixtures/scenarios/packing_hand_worked.yaml: best-fit strands two GPUs where fgd
// allocates all twelve; and the mode's rules (inflation, shuffling, time-less lists).
#include <doctest/doctest.h>

#include <string>

#include "config/scenario.h"
#include "run/packing_run.h"
#include "run/scenario_run.h"
#include "support/scratch_dir.h"
#include "util/error.h"
#include "workload/trace_format.h"

using namespace schedlab;

namespace {
const std::string kRoot = SCHEDLAB_SOURCE_DIR;
const std::string kHandWorked = kRoot + "/tests/fixtures/scenarios/packing_hand_worked.yaml";

run::PackingOutcome pack(const std::vector<std::string>& sets, const std::string& out = {}) {
  util::Notices notices;
  return run::run_packing(config::load_scenario(kHandWorked, sets), notices, out);
}
}  // namespace

TEST_CASE("Sim.Packing.best_fit_strands_two_gpus_on_the_hand_worked_case") {
  auto o = pack({"scheduler.placement=best-fit"});
  CHECK(o.total_gpus == 12);
  CHECK(o.pods_arrived == 6);
  CHECK(o.pods_placed == 5);
  CHECK(o.gpu_pods_failed == 1);
  CHECK(o.demand_milli == 12000);
  CHECK(o.allocated_milli == 10000);
}

TEST_CASE("Sim.Packing.fgd_allocates_every_gpu_on_the_hand_worked_case") {
  testing::ScratchDir dir("packing-fgd");
  const auto out = (dir.path / "r").string();
  auto o = pack({"scheduler.placement=fgd"}, out);
  CHECK(o.pods_placed == 6);
  CHECK(o.allocated_milli == 12000);
  CHECK(o.allocated_pct_at(100) == doctest::Approx(100));
  // Where each pod went (hosts h0..h2): the 1-GPU pod on h2, so that h1 keeps two GPUs
  // for the last 2-GPU pod.
  const std::string pods = testing::file_text(dir.path / "r" / "pods.csv");
  CHECK(pods ==
        "arrival,pod,tasks,gpus_per_task,gpu_milli,cpu_milli,placed,where,reason\n"
        "0,0,1,2,1000,1000,yes,h0:2,\n"
        "1,1,1,2,1000,1000,yes,h0:2,\n"
        "2,2,1,2,1000,1000,yes,h1:2,\n"
        "3,3,1,1,1000,1000,yes,h2:1,\n"
        "4,4,1,3,1000,1000,yes,h2:3,\n"
        "5,5,1,2,1000,1000,yes,h1:2,\n");
  // The curve: one point per whole percent of demand, 0 to 100.
  const std::string curve = testing::file_text(dir.path / "r" / "packing.csv");
  CHECK(curve.rfind("arrived_pct,allocated_pct,pods_arrived,pods_placed,gpu_demand,gpus_allocated\n0,0.00,0,0,0,0\n", 0) == 0);
  CHECK(curve.find("\n100,100.00,6,6,12,12\n") != std::string::npos);
}

TEST_CASE("Sim.Packing.best_fit_curve_shows_the_stranded_gpus") {
  testing::ScratchDir dir("packing-bf");
  pack({"scheduler.placement=best-fit"}, (dir.path / "r").string());
  const std::string curve = testing::file_text(dir.path / "r" / "packing.csv");
  // After the fifth pod (10 of 12 GPUs asked, 83.3%), all allocated; the sixth fails.
  CHECK(curve.find("\n83,83.33,5,5,10,10\n") != std::string::npos);
  CHECK(curve.find("\n100,83.33,6,5,12,10\n") != std::string::npos);
  const std::string pods = testing::file_text(dir.path / "r" / "pods.csv");
  CHECK(pods.find("\n3,3,1,1,1000,1000,yes,h1:1,\n") != std::string::npos);
  CHECK(pods.find("\n5,5,1,2,1000,1000,no,,no room\n") != std::string::npos);
}

TEST_CASE("Sim.Packing.list_short_of_the_target_is_topped_up_from_itself") {
  // arrive_until 2: 24 GPUs of demand from a 12-GPU list; drawn pods are copies of listed ones.
  auto o = pack({"workload.packing.arrive_until=2"});
  CHECK(o.pods_in_list == 6);
  CHECK(o.demand_milli >= 24000);
  CHECK(o.pods_arrived > 6);
  CHECK(o.curve.back().arrived_pct == 200);
}

TEST_CASE("Sim.Packing.shuffled_order_depends_on_the_seed_only") {
  testing::ScratchDir dir("packing-shuffle");
  auto run = [&](const std::string& name, const std::string& seed) {
    pack({"workload.packing.order=shuffled", "seed=" + seed}, (dir.path / name).string());
    return testing::file_text(dir.path / name / "pods.csv");
  };
  const auto a = run("a", "7"), b = run("b", "7");
  CHECK(a == b);
  bool differs = false;
  for (const char* seed : {"1", "2", "3", "4"}) differs = differs || run(std::string("s") + seed, seed) != a;
  CHECK(differs);
}

TEST_CASE("Sim.Packing.timeless_pod_list_is_refused_for_a_replay") {
  workload::TraceOptions options;
  options.format = "openb";
  const std::string path = kRoot + "/tests/fixtures/traces/openb/packing_hand_worked.csv";
  CHECK_THROWS_WITH_AS(workload::open_trace(path, options),
                       doctest::Contains("1: creation_time: this pod list has no creation_time or deletion_time"),
                       util::InputError);
  options.times_optional = true;
  auto source = workload::open_trace(path, options);
  workload::JobSpec job;
  int pods = 0;
  while (source->next(job)) {
    CHECK(job.submit == 0);
    ++pods;
  }
  CHECK(pods == 6);
}

TEST_CASE("Sim.Packing.mode_rules") {
  CHECK_THROWS_WITH_AS(config::load_scenario(kHandWorked, {"scheduler.preemption=priority"}),
                       doctest::Contains("preemption must be none"), util::InputError);
  CHECK_THROWS_WITH_AS(config::load_scenario(kHandWorked, {"workload.mode=replay"}),
                       doctest::Contains("workload.packing: applies only with workload.mode: packing"),
                       util::InputError);
  CHECK_THROWS_WITH_AS(config::load_scenario(kHandWorked, {"workload.packing.arrive_until=0"}),
                       doctest::Contains("arrive_until"), util::InputError);
}
