// Gavel's policies as the scheduler's decision step (sched/gavel/gavel_step.h), run end to end
// through the simulator on a case worked out by hand in the comments.
#include <doctest/doctest.h>

#include <string>

#include "../../support/sim_harness.h"
#include "sched/gavel/gavel_step.h"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

// A perf model whose speed depends only on the GPU model of the job's first task: a
// throughput matrix that can be worked out by hand.
class SpeedByModel final : public perf::PerfModel {
 public:
  explicit SpeedByModel(std::vector<double> speeds) : speeds_(std::move(speeds)) {}
  std::string name() const override { return "speed-by-model"; }
  double speed(const workload::JobSpec& /*job*/, const cluster::Placement& p,
               const cluster::Topology& topo) const override {
    return speeds_[topo.host(p.tasks.front().host).model];
  }

 private:
  std::vector<double> speeds_;
};

// One H100 host and one V100 host, one GPU each: two GPU types.
cluster::ClusterSpec two_types() {
  cluster::ClusterSpec spec;
  spec.name = "two-types";
  cluster::RackSpec r{"r", 1, {{1, 1, kH100, 50}, {1, 1, kV100, 12.5}}, 0, 1};
  spec.racks = {r};
  return spec;
}

struct GavelRun {
  cluster::GpuCatalog catalog = small_catalog();
  cluster::Topology topo;
  VectorSource source;
  SpeedByModel perf;
  metrics::Collector collector;
  RecordingObserver observer;

  GavelRun(const std::string& policy, const std::vector<JobRow>& rows, const std::string& round_s = "100")
      : topo(two_types(), catalog),
        source(rows),
        perf({1.0, 2.0, 3.0, 3.0}),  // V100 1, H100 3 (A100 and H200 are not in the cluster)
        collector(topo, 60 * kMicrosPerSecond),
        observer(topo, collector) {
    auto config = scheduler_config("best-fit");
    config.policy = policy;
    config.args[policy].values["round_s"] = util::ArgValue{round_s, 1};
    sim::Simulation simulation(topo, config, source, perf, observer, "memory", lifecycle::LifecycleConfig{});
    simulation.run();
  }
  // "H100@0" per run of the job, in order.
  std::string runs(workload::JobId id) const {
    std::string out;
    const auto& l = observer.job(id);
    for (std::size_t i = 0; i < l.starts.size(); ++i) {
      if (!out.empty()) out += ' ';
      out += catalog.model(topo.host(l.placements[i].tasks.front().host).model).name + "@" +
             fmt::format("{:g}", engine::to_seconds(l.starts[i]));
    }
    return out;
  }
};

}  // namespace

TEST_CASE("Sched.Gavel.Step.max_min_three_jobs_two_types_by_hand") {
  // Three identical 1-GPU jobs at t = 0, speed 3 on the H100 and 1 on the V100. The
  // proportional throughput is (3 + 1) / 2 = 2 for each; max-min fairness (identical jobs, one
  // row) gives each X = 1/3 on both types: 4/3 each. Rounds of 100 s; after the reset every
  // job has received half a round (50 s) of each type.
  // Received times below are per type (H100 / V100) and job (0/1/2), half a round each at
  // the reset; priority = X / (received / the type's total).
  // Round 1 (t = 0): all priorities (1/3) / (1/3) = 1; ties keep job order. H100 (fastest,
  //   taken first): job 0. V100: job 1. Job 2 waits.
  // Round 2 (t = 100): H100 150/50/50 -> 0.56/1.67/1.67: job 1 (moved from the V100). V100
  //   50/150/50 -> 1.67/0.56/1.67: job 0 (moved from the H100). The moved jobs start again
  //   at the same instant, once their stops are applied.
  // Round 3 (t = 200): H100 150/150/50 and V100 150/150/50 -> 0.78/0.78/2.33 on both: job 2
  //   on the H100; on the V100 jobs 0 and 1 tie, job 0 first: it keeps its GPU (lease
  //   renewal), job 1 is preempted.
  // Round 4 (t = 300): H100 150/150/150 -> 1/1/1: job 0 (moved again); V100 250/150/50 ->
  //   job 2 (3.0, moved). Round 5 (t = 400): H100 250/150/150 -> job 1.
  std::vector<JobRow> rows(3);
  for (auto& r : rows) r.duration_s = 2000;
  GavelRun run("gavel-max-min-fairness", rows);
  for (workload::JobId id = 0; id < 3; ++id) CHECK(run.observer.job(id).done == 1);
  const auto r0 = run.runs(0), r1 = run.runs(1), r2 = run.runs(2);
  CHECK(r0.rfind("H100@0 V100@100 H100@300 ", 0) == 0);
  CHECK(r1.rfind("V100@0 H100@100 H100@400 ", 0) == 0);
  CHECK(r2.rfind("H100@200 V100@300 ", 0) == 0);
  CHECK(run.observer.job(1).stops >= 2);
  CHECK(run.observer.violations() == 0);
}

TEST_CASE("Sched.Gavel.Step.finish_time_fairness_runs_every_job_to_its_end") {
  // A short and a long job: finish-time fairness gives the long one, whose isolated finish is
  // far, no reason to crowd out the short one; both finish, the short one first.
  std::vector<JobRow> rows(3);
  rows[0].duration_s = 300;
  rows[1].duration_s = 3000;
  rows[2].duration_s = 3000;
  rows[2].submit_s = 50;
  GavelRun run("gavel-finish-time-fairness", rows);
  for (workload::JobId id = 0; id < 3; ++id) CHECK(run.observer.job(id).done == 1);
  CHECK(run.observer.job(0).end < run.observer.job(1).end);
  CHECK(run.observer.violations() == 0);
}

TEST_CASE("Sched.Gavel.Step.refuses_jobs_it_cannot_allocate") {
  // A 2-GPU gang fits on no single type here (one GPU each); a share of a GPU is not whole.
  std::vector<JobRow> rows(3);
  rows[0].gpus_per_task = 2;
  rows[1].gpu_milli = 500;
  GavelRun run("gavel-max-min-fairness", rows);
  CHECK(run.observer.job(0).drops == 1);
  CHECK(run.observer.job(1).drops == 1);
  CHECK(run.observer.job(2).done == 1);
}
