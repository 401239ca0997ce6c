// Elastic jobs under `scheduler.policy: optimus`, worked out by hand, with the conformance checks of
// the recording observer (no GPU over-allocated, every run's GPUs freed, work never lost) and
// the resize's own: a gang resized whole, work kept up to the restart cost.
#include <doctest/doctest.h>

#include "lifecycle_harness.h"
#include "metrics/elastic_observer.h"
#include "util/error.h"
#include "util/notice.h"

using namespace schedlab;
using namespace schedlab::testing;

namespace {
// A job's speed is its GPU count (perfect scaling of work measured on one GPU).
class LinearModel final : public perf::PerfModel {
 public:
  explicit LinearModel(bool sizes) : sizes_(sizes) {}
  std::string name() const override { return "linear"; }
  double speed(const workload::JobSpec&, const cluster::Placement& p, const cluster::Topology&) const override {
    return static_cast<double>(p.gpus());
  }
  bool sizes_elastic_jobs() const override { return sizes_; }

 private:
  bool sizes_;
};

struct ElasticRow {
  double submit_s, work_s;
  std::uint32_t tasks;
  std::uint16_t min, max;
};

class ElasticSource final : public SpecListSource {
 public:
  explicit ElasticSource(const std::vector<ElasticRow>& rows) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      auto j = spec_of(JobRow(rows[i].submit_s, rows[i].work_s, rows[i].tasks, 1), i);
      j.min_gpus = rows[i].min;
      j.max_gpus = rows[i].max;
      jobs_.push_back(j);
    }
  }
};

struct ElasticRun {
  cluster::GpuCatalog catalog = small_catalog();
  cluster::Topology topo;
  ElasticSource source;
  LinearModel perf;
  metrics::Collector collector;
  RecordingObserver observer;
  LifeRecorder recorder;
  metrics::ElasticObserver elastic;
  util::Notices notices{util::Notices::Hold{}};

  ElasticRun(const std::vector<ElasticRow>& rows, const std::string& allocation, bool sizes = true)
      : topo(uniform_cluster(1, 1, 4), catalog),
        source(rows),
        perf(sizes),
        collector(topo, 60 * kMicrosPerSecond),
        observer(topo, collector),
        recorder(observer) {
    auto config = scheduler_config("best-fit");
    config.policy = allocation;
    lifecycle::LifecycleConfig lifecycle;
    lifecycle.resize_restart = sec(10);
    metrics::FanOut both({&recorder, &elastic});
    sim::Simulation simulation(topo, config, source, perf, both, "memory", lifecycle, nullptr, sim::Driver{}, &notices);
    simulation.run();
  }
  double end_s(workload::JobId id) const { return engine::to_seconds(observer.job(id).end); }
  const sched::JobLife& life(workload::JobId id) const { return observer.job(id).final_life; }
};
}  // namespace

// 4 GPUs, restarts cost 10 s. J0 (t=0, 400 s of one-GPU work, range 1..4), J1 (t=50, 100 s, 1..4).
//   t=0   J0 alone: 4 GPUs (every GPU gains): 200 done by t=50.
//   t=50  remaining J0 200, J1 100. Mins 1 + 1; gains J0 200-100 = 100, J1 100-50 = 50 -> J0 2;
//         then J0 100-66.7 = 33.3 < J1 50 -> J1 2. J0 resizes 4 -> 2: progress from 60.
//         J1 starts on 2 (its first start: no restart cost): 100 / 2 = 50 s -> ends at 100.
//   t=100 J0 has done 200 + 40 x 2 = 280: remaining 120; every GPU gains -> 4, a resize:
//         progress from 110, 120 / 4 = 30 s -> ends at 140. Work: 200 + 80 + 120 = 400.
TEST_CASE("Sim.Resize.optimus_hand_worked") {
  ElasticRun r({{0, 400, 2, 1, 4}, {50, 100, 2, 1, 4}}, "optimus");
  CHECK(r.observer.violations() == 0);
  CHECK(r.observer.lifecycle_errors().empty());
  CHECK(r.observer.held_at_end() == 0);
  CHECK(r.end_s(1) == 100);
  CHECK(r.end_s(0) == 140);
  CHECK(r.life(0).resizes == 2);
  CHECK(r.life(0).restarts == 0);
  CHECK(r.life(0).resize_lost_us == doctest::Approx(20e6));
  CHECK(r.life(1).resizes == 0);
  // Sizes of J0's runs: 4, then 2, then 4; each run a whole gang of one-GPU tasks.
  std::vector<std::uint64_t> sizes;
  for (const auto& p : r.observer.job(0).placements) sizes.push_back(p.gpus());
  CHECK(sizes == std::vector<std::uint64_t>{4, 2, 4});
  std::ostringstream csv;
  r.elastic.write_csv(csv);
  CHECK(csv.str() ==
        "id,min_gpus,max_gpus,resizes,resize_lost_s,gpu_s_by_size\n"
        "0,1,4,2,20.000,2:100.000;4:360.000\n"
        "1,1,4,0,0.000,2:100.000\n");
}

// Without a resizing policy, elastic jobs run at their traced size (2 GPUs at speed 2), and
// the run says so once.
TEST_CASE("Sim.Resize.rigid_policy_runs_the_traced_size") {
  ElasticRun r({{0, 400, 2, 1, 4}, {50, 100, 2, 1, 4}}, "");
  CHECK(r.end_s(0) == 200);
  CHECK(r.end_s(1) == 100);
  CHECK(r.life(0).resizes == 0);
  const auto said = r.notices.take_held();
  REQUIRE(said.size() == 1);
  CHECK(said[0].find("traced size") != std::string::npos);
}

TEST_CASE("Sim.Resize.refuses_what_it_cannot_honour") {
  // A model whose speed does not follow the size, and a range above the cluster's 4 GPUs.
  CHECK_THROWS_AS(ElasticRun({{0, 100, 2, 1, 4}}, "optimus", false), util::InputError);
  CHECK_THROWS_AS(ElasticRun({{0, 100, 2, 1, 8}}, "optimus"), util::InputError);
}
