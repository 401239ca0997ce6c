// The `placement` perf model: settings errors, the seeded model mapping, speeds relative to the
// reference shape, and max-min sharing of rack uplinks between running gangs.
#include <doctest/doctest.h>

#include <algorithm>

#include <map>

#include "config/cluster_config.h"
#include "perf/gang_shape.h"
#include "perf/model_mix.h"
#include "perf/perf_registry.h"
#include "perf/placement_model.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::perf;

namespace {

const std::string kSrc = SCHEDLAB_SOURCE_DIR;
const std::string kScenario = kSrc + "/scenarios/x.yaml";  // anchors ../configs/models.yaml

const cluster::GpuCatalog& gpus() {
  static const cluster::GpuCatalog c = config::load_catalog(kSrc + "/configs/gpus.yaml");
  return c;
}

// 2 racks x 2 hosts x 8 A100, 25 GB/s NICs, uplinks 2:1 oversubscribed (25 GB/s each).
cluster::Topology two_racks() {
  cluster::ClusterSpec spec;
  spec.name = "t";
  cluster::RackSpec r;
  r.name = "r";
  r.count = 2;
  r.oversubscription = 2;
  r.hosts.push_back({2, 8, *gpus().find("A100"), 25.0});
  spec.racks.push_back(r);
  return cluster::Topology(spec, gpus());
}

cluster::Placement on(std::vector<std::pair<cluster::HostId, std::uint16_t>> slots) {
  cluster::Placement p;
  for (auto [h, g] : slots) p.tasks.push_back({h, g, 0, 0});
  return p;
}

workload::JobSpec job(workload::JobId id, std::uint32_t tasks, std::uint32_t per_task) {
  workload::JobSpec j;
  j.id = id;
  j.duration = 3600'000'000;
  j.tasks = tasks;
  j.gpus_per_task = per_task;
  return j;
}

std::unique_ptr<PerfModel> model(const cluster::Topology& topo, const util::NamedArgs& args) {
  return make_perf_model("placement", args, kScenario, topo, 7);
}

}  // namespace

TEST_CASE("Perf.PlacementModel.settings_errors") {
  auto topo = two_racks();
  CHECK_THROWS_WITH_AS(make_perf_model("placement", {{"algoritm", "ring"}}, kScenario, topo, 1),
                       doctest::Contains("did you mean 'algorithm'"), util::InputError);
  CHECK_THROWS_WITH_AS(make_perf_model("placement", {{"algorithm", "butterfly"}}, kScenario, topo, 1),
                       doctest::Contains("valid: ring, hierarchical, tree, ps"), util::InputError);
  CHECK_THROWS_WITH_AS(make_perf_model("placement", {{"overlap", "1.5"}}, kScenario, topo, 1),
                       doctest::Contains("perf.overlap"), util::InputError);
  CHECK_THROWS_WITH_AS(make_perf_model("placement", {{"model_mix", "{resnet: 1}"}}, kScenario, topo, 1),
                       doctest::Contains("did you mean 'resnet50'"), util::InputError);
  CHECK_THROWS_WITH_AS(
      make_perf_model("placement", {{"model_mix", "{\"1\": {resnet50: 1}, \"4+\": {vgg16: 1}}"}}, kScenario, topo, 1),
      doctest::Contains("gap at 2"), util::InputError);
  CHECK_THROWS_WITH_AS(make_perf_model("placement", {{"reference", "tight"}}, kScenario, topo, 1),
                       doctest::Contains("tightest"), util::InputError);
  CHECK_THROWS_WITH_AS(make_perf_model("placement", {{"contention", "yes"}}, kScenario, topo, 1),
                       doctest::Contains("true or false"), util::InputError);
}

TEST_CASE("Perf.ModelMix.deterministic_and_weighted") {
  auto cat = load_model_catalog(kSrc + "/configs/models.yaml");
  auto mix = ModelMix::parse(util::ArgValue("{resnet50: 3, vgg16: 1}"), cat, "s.yaml");
  std::map<std::size_t, int> counts;
  for (workload::JobId i = 0; i < 4000; ++i) {
    auto j = job(i, 1, 1);
    std::size_t a = mix.pick(42, j);
    CHECK(a == mix.pick(42, j));  // same seed and id: same model
    ++counts[a];
  }
  REQUIRE(counts.size() == 2);
  double share = counts[0] / 4000.0;  // resnet50 is catalog index 0
  CHECK(share == doctest::Approx(0.75).epsilon(0.05));
  // A different seed gives a different assignment (for at least some jobs).
  int differ = 0;
  for (workload::JobId i = 0; i < 100; ++i) differ += mix.pick(42, job(i, 1, 1)) != mix.pick(43, job(i, 1, 1));
  CHECK(differ > 10);
  // The documented hash, pinned so that a change is noticed.
  CHECK(mix_uniform(1, 0) == doctest::Approx(mix_uniform(1, 0)));
  CHECK(mix_uniform(1, 0) != mix_uniform(1, 1));

  SUBCASE("GPU-count classes") {
    auto classed = ModelMix::parse(
        util::ArgValue("{\"1\": {resnet50: 1}, \"2-8\": {bert-large: 1}, \"9+\": {llama2-7b: 1}}"), cat, "s");
    CHECK(cat.models()[classed.pick(1, job(0, 1, 1))].name == "resnet50");
    CHECK(cat.models()[classed.pick(1, job(1, 1, 8))].name == "bert-large");
    CHECK(cat.models()[classed.pick(1, job(2, 4, 8))].name == "llama2-7b");
  }
}

TEST_CASE("Perf.PlacementModel.speed_follows_placement") {
  auto topo = two_racks();
  auto m = model(topo, {{"model_mix", "{vgg16: 1}"}, {"contention", "false"}, {"reference", "tightest"}});
  auto j = job(0, 16, 1);
  // Tightest = 2 hosts x 8 in one rack: speed 1 there.
  CHECK(m->speed(j, on({{0, 8}, {1, 8}}), topo) == doctest::Approx(1.0));
  // Across racks the per-host uplink share is 25/2 = 12.5 GB/s < 25: slower.
  double cross = m->speed(j, on({{0, 8}, {2, 8}}), topo);
  CHECK(cross < 0.97);
  // Traced reference (16 tasks of 1 GPU, 16 hosts): packing onto 2 hosts is faster than the trace.
  auto traced = model(topo, {{"model_mix", "{vgg16: 1}"}, {"contention", "false"}});
  CHECK(traced->speed(j, on({{0, 8}, {1, 8}}), topo) > 1.0);
  // A one-GPU job on the reference GPU runs at the traced speed.
  CHECK(traced->speed(job(1, 1, 1), on({{0, 1}}), topo) == doctest::Approx(1.0));
}

TEST_CASE("Perf.PlacementModel.max_min_sharing_of_uplinks") {
  auto topo = two_racks();
  // Uplinks are 25 GB/s each (2 hosts x 25 / 2). Runs 1 and 2 each cross both uplinks, run 3 stays
  // in one host. Fair shares: 12.5 GB/s each for runs 1 and 2, the same as the static per-host
  // share uplink/hosts = 12.5; alone, a run gets the full 25 GB/s uplink (its NIC rate).
  auto shared = model(topo, {{"model_mix", "{vgg16: 1}"}, {"reference", "tightest"}});
  auto fixed = model(topo, {{"model_mix", "{vgg16: 1}"}, {"reference", "tightest"}, {"contention", "false"}});
  REQUIRE(shared->shares_links());
  CHECK_FALSE(fixed->shares_links());
  auto j1 = job(1, 2, 8), j2 = job(2, 2, 8), j3 = job(3, 1, 8);
  auto p1 = on({{0, 8}, {2, 8}}), p2 = on({{1, 8}, {3, 8}});
  shared->run_started(11, j1, p1, topo);
  shared->run_started(12, j2, p2, topo);
  shared->run_started(13, j3, on({{0, 0}}), topo);
  std::vector<std::pair<std::uint64_t, double>> changes;
  shared->take_speed_changes(changes);
  REQUIRE(changes.size() == 3);
  CHECK(changes[0].first == 11);  // run-id order
  CHECK(changes[1].first == 12);
  CHECK(changes[2].first == 13);
  CHECK(changes[0].second == doctest::Approx(fixed->speed(j1, p1, topo)));
  CHECK(changes[1].second == doctest::Approx(changes[0].second));
  double both = changes[0].second;

  // Nothing changed: nothing reported.
  changes.clear();
  shared->take_speed_changes(changes);
  CHECK(changes.empty());

  // Run 12 ends: run 11 has the uplinks alone and speeds up; run 13 (one host) is not reported.
  shared->run_ended(12);
  shared->take_speed_changes(changes);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].first == 11);
  CHECK(changes[0].second > both * 1.02);
  // ... to the speed of the same job inside one rack (the NIC is the limit either way).
  CHECK(changes[0].second == doctest::Approx(fixed->speed(j1, on({{0, 8}, {1, 8}}), topo)));
}

TEST_CASE("Perf.PlacementModel.a_job_without_gpus_runs_as_traced") {
  auto topo = two_racks();
  auto shared = model(topo, {{"model_mix", "{vgg16: 1}"}});
  auto cpu_job = job(7, 3, 0);  // three tasks, no GPU
  const auto tasks = on({{0, 0}, {2, 0}, {3, 0}});  // across racks: no allreduce to slow it
  CHECK(shared->speed(cpu_job, tasks, topo) == 1.0);
  shared->run_started(21, cpu_job, tasks, topo);
  std::vector<std::pair<std::uint64_t, double>> changes;
  shared->take_speed_changes(changes);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0] == std::pair<std::uint64_t, double>{21, 1.0});
  // It shares no link: a GPU gang starting beside it does not move it.
  shared->run_started(22, job(8, 2, 8), on({{0, 8}, {2, 8}}), topo);
  changes.clear();
  shared->take_speed_changes(changes);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].first == 22);
  shared->run_ended(21);
}

// Pollux's goodput ratio (perf_model.h): best-batch goodput over the throughput at the catalog
// batch times the efficiency of the reference run's batch. 1 for a model without statistical
// efficiency (vgg16). resnet50 (batch 256, M0 200, phi 11357 at progress 0.5) on one GPU is
// compute-bound: the best batch is M0 at the catalog's rate, so the ratio is E(200) / E(256)
// = (phi + 256) / (phi + 200). On 16 GPUs traced at 16 x 256, a smaller batch buys more, the more
// the smaller the noise scale (early in training). With `reference: one-gpu` the work counts
// one GPU's samples at 256: the same goodput over a larger efficiency, E(4096) / E(256) of it.
TEST_CASE("Perf.PlacementModel.goodput_ratio") {
  auto topo = two_racks();
  auto vgg = model(topo, {{"model_mix", "{vgg16: 1}"}, {"contention", "false"}});
  auto resnet = model(topo, {{"model_mix", "{resnet50: 1}"}, {"contention", "false"}});
  auto one_gpu = model(topo, {{"model_mix", "{resnet50: 1}"}, {"contention", "false"}, {"reference", "one-gpu"}});
  auto j = job(0, 16, 1);
  const auto sixteen = on({{0, 8}, {1, 8}});
  CHECK(vgg->goodput_ratio(j, sixteen, topo, 0.5) == 1.0);
  CHECK(resnet->goodput_ratio(job(1, 1, 1), on({{0, 1}}), topo, 0.5) ==
        doctest::Approx((11357.0 + 256) / (11357.0 + 200)));
  const double late = resnet->goodput_ratio(j, sixteen, topo, 1.0);
  const double early = resnet->goodput_ratio(j, sixteen, topo, 0.0);
  CHECK(late > 1.0);
  CHECK(early > late);
  const double phi = 11357;  // progress 0.5
  CHECK(one_gpu->goodput_ratio(j, sixteen, topo, 0.5) ==
        doctest::Approx(resnet->goodput_ratio(j, sixteen, topo, 0.5) * ((phi + 256) / (phi + 4096))));
}

// goodput_ratios (the simulator's charge asks them all at once) equals goodput_ratio step by step
// from the first step asked; the steps before it are left at 1.
TEST_CASE("Perf.PlacementModel.goodput_ratios_are_goodput_ratio_per_step") {
  auto topo = two_racks();
  auto resnet = model(topo, {{"model_mix", "{resnet50: 1}"}, {"contention", "false"}, {"reference", "one-gpu"}});
  auto vgg = model(topo, {{"model_mix", "{vgg16: 1}"}, {"contention", "false"}});
  auto j = job(0, 16, 1);
  const auto sixteen = on({{0, 8}, {1, 8}});
  std::vector<double> all;
  resnet->goodput_ratios(j, sixteen, topo, 37, 100, all);
  REQUIRE(all.size() == 100);
  CHECK(all[36] == 1.0);
  for (int k = 37; k < 100; ++k) CHECK(all[static_cast<std::size_t>(k)] == resnet->goodput_ratio(j, sixteen, topo, k / 100.0));
  vgg->goodput_ratios(j, sixteen, topo, 0, 100, all);
  CHECK(std::count(all.begin(), all.end(), 1.0) == 100);
}

TEST_CASE("Perf.PlacementModel.a_job_naming_its_model") {
  // One host of 8 V100 and one of 8 P100; jobs without a name are all vgg16 (the mix).
  cluster::ClusterSpec spec;
  spec.name = "h";
  cluster::RackSpec r;
  r.name = "r";
  r.count = 1;
  r.hosts.push_back({1, 8, *gpus().find("V100"), 50.0});
  r.hosts.push_back({1, 8, *gpus().find("P100"), 50.0});
  spec.racks.push_back(r);
  const cluster::Topology topo(spec, gpus());
  auto m = model(topo, {{"model_mix", "{vgg16: 1}"}, {"reference_gpu", "V100"}});
  workload::StringPool strings;
  m->bind_workload(strings, "t.csv");
  auto named = job(0, 1, 1);
  named.model = strings.intern("resnet50");
  // On a P100 (host 1) the named model runs at its measured P100/V100 ratio (219/1350,
  // configs/models.yaml), the mix's vgg16 at its own (144/500).
  CHECK(m->speed(named, on({{1, 1}}), topo) == doctest::Approx(219.0 / 1350.0).epsilon(0.01));
  CHECK(m->speed(job(1, 1, 1), on({{1, 1}}), topo) == doctest::Approx(144.0 / 500.0).epsilon(0.01));
  CHECK(!m->training_model_error("resnet50"));
  const auto typo = m->training_model_error("resnet5");
  REQUIRE(typo);
  CHECK(typo->find("unknown training model 'resnet5'; did you mean 'resnet50'?") != std::string::npos);
  // An unknown name that reaches the model (a run without the check before it) is bad input at
  // its line, not a model drawn in its place.
  auto unknown = job(2, 1, 1);
  unknown.model = strings.intern("nope");
  unknown.line = 9;
  CHECK_THROWS_WITH_AS(m->speed(unknown, on({{1, 1}}), topo),
                       doctest::Contains("t.csv:9: model: unknown training model 'nope'"), util::InputError);
  // The `trace` model knows no training models: the names have no effect there.
  auto trace = make_perf_model("trace", {}, kScenario, topo, 7);
  CHECK(!trace->training_model_error("nope"));
}
