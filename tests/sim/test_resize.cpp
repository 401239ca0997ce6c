// Elastic jobs under the resizing policies (optimus, pollux, afs, sia), worked out by hand, with
// the conformance checks of the recording observer (no GPU over-allocated, every run's GPUs
// freed, work never lost) and the resize's own: a gang resized whole, work kept up to the
// restart cost.
#include <doctest/doctest.h>

#include <set>

#include "lifecycle_harness.h"
#include "metrics/elastic_observer.h"
#include "util/error.h"
#include "util/notice.h"

using namespace schedlab;
using namespace schedlab::testing;

namespace {
// A job's speed is its GPU count (perfect scaling of work measured on one GPU); `by_model`: each
// GPU counts its model's catalog speed (V100 1, H100 4.5).
class LinearModel final : public perf::PerfModel {
 public:
  explicit LinearModel(bool sizes, bool by_model = false) : sizes_(sizes), by_model_(by_model) {}
  std::string name() const override { return "linear"; }
  double speed(const workload::JobSpec&, const cluster::Placement& p, const cluster::Topology& topo) const override {
    if (!by_model_) return static_cast<double>(p.gpus());
    double v = 0;
    for (const auto& t : p.tasks) v += t.gpus * topo.catalog().model(topo.host(t.host).model).speed;
    return v;
  }
  bool sizes_elastic_jobs() const override { return sizes_; }

 private:
  bool sizes_, by_model_;
};

// One host of 4 V100 and one of 4 H100.
cluster::ClusterSpec v100_h100() {
  cluster::ClusterSpec spec;
  spec.name = "v100-h100";
  cluster::RackSpec v{"v", 1, {{1, 4, kV100, 12.5}}, 0, 2};
  cluster::RackSpec h{"h", 1, {{1, 4, kH100, 50}}, 0, 2};
  spec.racks = {v, h};
  return spec;
}

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

  ElasticRun(const std::vector<ElasticRow>& rows, const std::string& allocation, bool sizes = true,
             const util::NamedArgs& args = {}, bool hetero = false)
      : topo(hetero ? v100_h100() : uniform_cluster(1, 1, 4), catalog),
        source(rows),
        perf(sizes, hetero),
        collector(topo, 60 * kMicrosPerSecond),
        observer(topo, collector),
        recorder(observer) {
    auto config = scheduler_config("best-fit");
    config.policy = allocation;
    if (!args.empty()) config.args[allocation] = args;
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

// The same two jobs under pollux (p = -1, restart penalty 30 s): fair share 4 at t=0 (one job),
// 2 at t=50. t=0: every GPU raises J0's speedup: 4. t=50: J1's first GPU is worth ~998 against
// J0's loss 0.57 (4 -> 3, discounted by (50 - 0) / (50 + 30)); its second 0.997 against 0.53
// (3 -> 2): 2 + 2, as optimus. t=100: J0 alone, 2 -> 4 discounted by (100 - 30) / 130 still
// raises its speedup (-1.85 > -2.00): 4. So the ends are optimus': 100 and 140.
TEST_CASE("Sim.Resize.pollux_hand_worked") {
  ElasticRun r({{0, 400, 2, 1, 4}, {50, 100, 2, 1, 4}}, "pollux");
  CHECK(r.observer.violations() == 0);
  CHECK(r.observer.lifecycle_errors().empty());
  CHECK(r.observer.held_at_end() == 0);
  CHECK(r.end_s(1) == 100);
  CHECK(r.end_s(0) == 140);
  CHECK(r.life(0).resizes == 2);
  CHECK(r.life(0).resize_lost_us == doctest::Approx(20e6));
}

// A restart penalty of 1000 s makes any change of a young job nearly worthless: at t=50 J0
// keeps (50 / 1050) of its speedup elsewhere, so it gives J1 one GPU (worth ~998) but not a
// second (J0's loss 6.8 > J1's gain 0.997): 3 + 1. J0 ends at 60 + 200 / 3; then J1, alone, is
// not grown (its discounted 4 GPUs score below its 1). J1 ends at 150.
TEST_CASE("Sim.Resize.pollux_restart_penalty_holds_sizes") {
  ElasticRun r({{0, 400, 2, 1, 4}, {50, 100, 2, 1, 4}}, "pollux", true, util::NamedArgs{{"restart_penalty_s", "1000"}});
  CHECK(r.observer.violations() == 0);
  CHECK(r.observer.lifecycle_errors().empty());
  CHECK(r.end_s(0) == doctest::Approx(60 + 200.0 / 3).epsilon(1e-6));
  CHECK(r.end_s(1) == doctest::Approx(150).epsilon(1e-6));
  std::vector<std::uint64_t> sizes;
  for (const auto& p : r.observer.job(0).placements) sizes.push_back(p.gpus());
  CHECK(sizes == std::vector<std::uint64_t>{4, 3});
  CHECK(r.life(1).resizes == 0);
}

// AFS-L: t=50 J0 (200 left) keeps its min 1; J1 (100 left, the shorter) takes the other three:
// its ratios (from none: infinite, then 1/1, then 1/2) never fall below J0's (2-1)/2 (a tie
// keeps the shorter): 1 + 3. J1 ends at 50 + 100/3; J0 then grows back to 4 (restart 10 s) and ends at
// 50 + 100/3 + 10 + (200 - (100/3 - 10)) / 4 = 137.5.
TEST_CASE("Sim.Resize.afs_hand_worked") {
  ElasticRun r({{0, 400, 2, 1, 4}, {50, 100, 2, 1, 4}}, "afs");
  CHECK(r.observer.violations() == 0);
  CHECK(r.observer.lifecycle_errors().empty());
  CHECK(r.observer.held_at_end() == 0);
  CHECK(r.end_s(1) == doctest::Approx(50 + 100.0 / 3).epsilon(1e-6));
  CHECK(r.end_s(0) == doctest::Approx(137.5).epsilon(1e-6));
  std::vector<std::uint64_t> sizes;
  for (const auto& p : r.observer.job(0).placements) sizes.push_back(p.gpus());
  CHECK(sizes == std::vector<std::uint64_t>{4, 1, 4});
}

// Conformance for every resizing policy on a busier run: no GPU over-allocated, every run a
// whole gang freed at its end, work never lost (the recording observer's checks), and each
// resize charged exactly the restart cost (10 s of wall time).
TEST_CASE("Sim.Resize.every_policy_keeps_the_invariants") {
  std::vector<ElasticRow> rows;
  for (int i = 0; i < 12; ++i)
    rows.push_back({10.0 * i, 50.0 + 37.0 * (i % 5), static_cast<std::uint32_t>(1 + i % 2),
                    static_cast<std::uint16_t>(1 + i % 2), static_cast<std::uint16_t>(2 + i % 3)});
  for (const char* policy : {"optimus", "pollux", "afs", "sia"}) {
    CAPTURE(policy);
    ElasticRun r(rows, policy);
    CHECK(r.observer.violations() == 0);
    CHECK(r.observer.lifecycle_errors().empty());
    CHECK(r.observer.held_at_end() == 0);
    for (workload::JobId id = 0; id < rows.size(); ++id) {
      CHECK(r.observer.job(id).end > 0);
      CHECK(r.life(id).resize_lost_us == doctest::Approx(r.life(id).resizes * 10e6));
      for (const auto& p : r.observer.job(id).placements) {
        CHECK(p.gpus() >= rows[id].min);
        CHECK(p.gpus() <= rows[id].max);
      }
    }
  }
}

// Optimus' churn guard: at t=100 J0 (120 left, on 2) would grow to 4, cutting its remaining time
// by 120/2 - 120/4 = 30 s. With min_gain_s 30 that is not more than the guard: it stays on 2 and
// ends at 160 (one resize, the shrink at t=50, which is not guarded); with 29 it grows, as plain.
TEST_CASE("Sim.Resize.optimus_churn_guard") {
  ElasticRun guarded({{0, 400, 2, 1, 4}, {50, 100, 2, 1, 4}}, "optimus", true, util::NamedArgs{{"min_gain_s", "30"}});
  CHECK(guarded.observer.violations() == 0);
  CHECK(guarded.end_s(0) == 160);
  CHECK(guarded.life(0).resizes == 1);
  ElasticRun grows({{0, 400, 2, 1, 4}, {50, 100, 2, 1, 4}}, "optimus", true, util::NamedArgs{{"min_gain_s", "29"}});
  CHECK(grows.end_s(0) == 140);
  CHECK(grows.life(0).resizes == 2);
}

// Sia on one host of 4 V100 (speed 1) and one of 4 H100 (4.5); p = -0.5, lambda_n 1.1, lambda_a
// 0.01, R = 30 s. J0 (t=0, 1800 s of one-V100 work, 1..4), J1 (t=40, 100 s, 1..4).
//   t=0   J0 alone: its best term is 4 H100, g = 18: 1.1 - 18^-0.5 = 0.864. Speed 18.
//   t=40  J0 (720 done) keeps 40 / 70 = 0.571 of g elsewhere. Staying (0.864 + 0.01) with J1 on
//         4 V100 (0.6) = 1.474 beats J0 to 4 V100 + J1 to 4 H100 (1.1 - 2.29^-0.5 = 0.439, + 0.864
//         = 1.303) and J0 2 H100 + J1 2 H100 (0.659 + 0.767 = 1.426). J1 at speed 4 ends at 65.
//   t=65  J0 alone again: stays. It ends at 1800 / 18 = 100. No resize: each job on one type.
TEST_CASE("Sim.Resize.sia_hand_worked") {
  ElasticRun r({{0, 1800, 1, 1, 4}, {40, 100, 1, 1, 4}}, "sia", true, {}, true);
  CHECK(r.observer.violations() == 0);
  CHECK(r.observer.lifecycle_errors().empty());
  CHECK(r.observer.held_at_end() == 0);
  CHECK(r.end_s(0) == doctest::Approx(100));
  CHECK(r.end_s(1) == doctest::Approx(65));
  CHECK(r.life(0).resizes == 0);
  CHECK(r.life(1).resizes == 0);
  auto models = [&](workload::JobId id) {
    std::set<cluster::ModelId> m;
    for (const auto& p : r.observer.job(id).placements)
      for (const auto& t : p.tasks) m.insert(r.topo.host(t.host).model);
    return m;
  };
  CHECK(models(0) == std::set<cluster::ModelId>{kH100});
  CHECK(models(1) == std::set<cluster::ModelId>{kV100});
}

// Sia on the two types with a busier run: every run on GPUs of one type, within the job's range,
// the conformance checks, each resize charged the restart cost.
TEST_CASE("Sim.Resize.sia_one_type_per_run") {
  std::vector<ElasticRow> rows;
  for (int i = 0; i < 12; ++i)
    rows.push_back({15.0 * i, 60.0 + 90.0 * (i % 4), 1, 1, static_cast<std::uint16_t>(1 + i % 4)});
  ElasticRun r(rows, "sia", true, util::NamedArgs{{"restart_penalty_s", "5"}}, true);
  CHECK(r.observer.violations() == 0);
  CHECK(r.observer.lifecycle_errors().empty());
  CHECK(r.observer.held_at_end() == 0);
  std::uint32_t resizes = 0;
  for (workload::JobId id = 0; id < rows.size(); ++id) {
    CHECK(r.observer.job(id).end > 0);
    CHECK(r.life(id).resize_lost_us == doctest::Approx(r.life(id).resizes * 10e6));
    resizes += r.life(id).resizes;
    for (const auto& p : r.observer.job(id).placements) {
      CHECK(p.gpus() >= rows[id].min);
      CHECK(p.gpus() <= rows[id].max);
      std::set<cluster::ModelId> m;
      for (const auto& t : p.tasks) m.insert(r.topo.host(t.host).model);
      CHECK(m.size() == 1);
    }
  }
  CHECK(resizes > 0);
}

// Sia runs a job on GPUs of one type: a rigid gang of 6 on 4 V100 + 4 H100 fits the cluster but
// no type, and is dropped with the reason; an elastic 2..6 runs (on at most 4 of one type).
TEST_CASE("Sim.Resize.sia_refuses_a_gang_no_type_holds") {
  ElasticRun r({{0, 100, 6, 6, 6}, {0, 100, 2, 2, 6}}, "sia", true, {}, true);
  CHECK(r.observer.job(0).drops == 1);
  CHECK(r.observer.job(0).drop_reason.find("GPUs of one type") != std::string::npos);
  CHECK(r.observer.job(1).drops == 0);
  REQUIRE(!r.observer.job(1).placements.empty());
  for (const auto& p : r.observer.job(1).placements) CHECK(p.gpus() <= 4);
}

// Pollux's exploration (growth 2) and periodic re-plan (interval_s 10), restart discount off,
// one job of 400 s of one-GPU work alone on 4 GPUs (restarts cost 10 s):
// - interval only: 4 GPUs at once, 400 / 4 = 100 s; the timers change nothing.
// - growth only: 1 GPU (it never ran), and no event re-plans: 400 s.
// - both: t=0 1 GPU (10 s of work by t=10); t=10 2 (restart to 20); t=20 4 (restart to 30);
//   then 390 / 4 = 97.5 s: ends at 127.5.
TEST_CASE("Sim.Resize.pollux_growth_and_interval") {
  const std::vector<ElasticRow> one = {{0, 400, 1, 1, 4}};
  auto run = [&](util::NamedArgs extra) {
    extra.values.emplace("restart_penalty_s", util::ArgValue("0"));
    return ElasticRun(one, "pollux", true, extra);
  };
  const ElasticRun interval = run({{"interval_s", "10"}});
  CHECK(interval.end_s(0) == doctest::Approx(100));
  const ElasticRun growth = run({{"growth", "2"}});
  CHECK(growth.end_s(0) == doctest::Approx(400));
  const ElasticRun both = run({{"growth", "2"}, {"interval_s", "10"}});
  CHECK(both.observer.violations() == 0);
  CHECK(both.observer.lifecycle_errors().empty());
  CHECK(both.end_s(0) == doctest::Approx(127.5));
  std::vector<std::uint64_t> sizes;
  for (const auto& p : both.observer.job(0).placements) sizes.push_back(p.gpus());
  CHECK(sizes == std::vector<std::uint64_t>{1, 2, 4});
}
