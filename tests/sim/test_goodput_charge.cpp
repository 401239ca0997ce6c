// A batch-adapting policy's runs progress at speed x the perf model's goodput ratio, constant
// within each whole percent of the job's work (sim_executor.h, perf/goodput_steps.h); other
// policies' runs at speed alone. Worked by hand on one job alone on 4 GPUs.
#include <doctest/doctest.h>

#include "lifecycle_harness.h"

using namespace schedlab;
using namespace schedlab::testing;

namespace {
// Speed = GPU count; goodput ratio 1 in the first half of the work, 2 in the second.
class HalfwayModel final : public perf::PerfModel {
 public:
  std::string name() const override { return "halfway"; }
  double speed(const workload::JobSpec&, const cluster::Placement& p, const cluster::Topology&) const override {
    return static_cast<double>(p.gpus());
  }
  bool sizes_elastic_jobs() const override { return true; }
  double goodput_ratio(const workload::JobSpec&, const cluster::Placement&, const cluster::Topology&,
                       double progress) const override {
    return progress < 0.5 ? 1.0 : 2.0;
  }
};

class OneJob final : public SpecListSource {
 public:
  OneJob(double work_s, std::uint16_t min, std::uint16_t max) {
    auto j = spec_of(JobRow(0, work_s, max, 1), 0);
    j.min_gpus = min;
    j.max_gpus = max;
    jobs_.push_back(j);
  }
};

double end_of(const std::string& policy, double work_s, std::uint16_t min, std::uint16_t max) {
  cluster::GpuCatalog catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 1, 4), catalog);
  OneJob source(work_s, min, max);
  HalfwayModel perf;
  metrics::Collector collector(topo, 60 * kMicrosPerSecond);
  RecordingObserver observer(topo, collector);
  auto config = scheduler_config("best-fit");
  config.policy = policy;
  sim::Simulation simulation(topo, config, source, perf, observer, "memory", lifecycle::LifecycleConfig{});
  simulation.run();
  CHECK(observer.violations() == 0);
  return engine::to_seconds(observer.job(0).end);
}
}  // namespace

TEST_CASE("Sim.GoodputCharge.pollux_runs_at_the_goodput_ratio") {
  // 400 s of one-GPU work on 4 GPUs: 200 at speed 4 (50 s), then 200 at 4 x 2 (25 s).
  CHECK(end_of("pollux", 400, 1, 4) == doctest::Approx(75));
  // A rigid job (4 GPUs) under pollux is charged the same.
  CHECK(end_of("pollux", 400, 4, 4) == doctest::Approx(75));
  // optimus does not adapt the batch: speed alone, 400 / 4.
  CHECK(end_of("optimus", 400, 1, 4) == doctest::Approx(100));
  // Nor does the rigid default.
  CHECK(end_of("", 400, 4, 4) == doctest::Approx(100));
}
