// Iteration time: the slowest-GPU rule, tier selection per placement, the bandwidth caps, the
// algorithms' phases and overlap, and the models.yaml catalog.
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "config/cluster_config.h"
#include "perf/gang_shape.h"
#include "perf/iteration_model.h"
#include "perf/model_catalog.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::perf;

namespace {

const cluster::GpuCatalog& gpus() {
  static const cluster::GpuCatalog c = config::load_catalog(std::string(SCHEDLAB_SOURCE_DIR) + "/configs/gpus.yaml");
  return c;
}
cluster::ModelId id(const char* name) { return *gpus().find(name); }

const char* kToy = R"(models:
  - name: toy
    params: 1e6
    batch: 10
    dtype: fp32
    samples_per_s: {V100: 100, A100: 250}
)";

const TrainingModel& toy() {
  static const ModelCatalog c = load_model_catalog_text(kToy, "toy.yaml");
  return c.models()[0];
}

}  // namespace

TEST_CASE("Perf.IterationModel.hand_computed_ring") {
  auto profile = datasheet_profile();
  // 2 hosts x 4 V100, 10 GB/s NICs, one rack. Gradients 4e6 B (fp32).
  std::vector<ShapeHost> hosts = {{id("V100"), 4, 10.0, 0}, {id("V100"), 4, 10.0, 0}};
  auto shape = make_gang_shape(hosts, gpus(), profile, {});
  CHECK(shape.inter_tier == LinkTier::nic);
  // β across hosts = min(profile nic 47, bound 10*2*7/(1*8) = 17.5, intra 300) = 17.5 GB/s.
  CHECK(shape.inter.beta_gbps == doctest::Approx(17.5));
  CommSettings cs;
  auto b = iteration_time(toy(), shape, cs, gpus(), profile);
  CHECK(b.compute_us == doctest::Approx(100000.0));  // 10 / 100 per s
  // Ring over 8 ranks: 2*7*2.3 + 2*7/8 * 4e6 / 17.5e3 = 32.2 + 400.
  REQUIRE(b.phases.size() == 1);
  CHECK(b.phases[0].us == doctest::Approx(432.2));
  CHECK(b.iteration_us == doctest::Approx(100432.2));
  CHECK(b.samples_per_s == doctest::Approx(8 * 10 / 0.1004322));
  CHECK(*b.bottleneck == LinkTier::nic);

  SUBCASE("overlap hides up to the fraction of compute") {
    cs.overlap = 0.5;
    auto o = iteration_time(toy(), shape, cs, gpus(), profile);
    CHECK(o.hidden_us == doctest::Approx(432.2));
    CHECK(o.iteration_us == doctest::Approx(100000.0));
    cs.overlap = 0.001;  // 100 µs hidden
    CHECK(iteration_time(toy(), shape, cs, gpus(), profile).iteration_us == doctest::Approx(100332.2));
  }
  SUBCASE("fusion: more calls pay more latency, not more bandwidth") {
    cs.fusion_bytes = 1e6;  // 4 calls of 1e6 B
    auto f = iteration_time(toy(), shape, cs, gpus(), profile);
    CHECK(f.phases[0].calls == 4);
    CHECK(f.phases[0].us == doctest::Approx(4 * 32.2 + 400));
  }
}

TEST_CASE("Perf.IterationModel.slowest_gpu_sets_the_pace") {
  auto profile = datasheet_profile();
  std::vector<ShapeHost> mixed = {{id("A100"), 4, 25.0, 0}, {id("V100"), 4, 25.0, 0}};
  auto b = iteration_time(toy(), make_gang_shape(mixed, gpus(), profile, {}), {}, gpus(), profile);
  CHECK(b.gpu == "V100");
  CHECK(b.compute_us == doctest::Approx(100000.0));
  std::vector<ShapeHost> fast = {{id("A100"), 4, 25.0, 0}, {id("A100"), 4, 25.0, 0}};
  CHECK(iteration_time(toy(), make_gang_shape(fast, gpus(), profile, {}), {}, gpus(), profile).compute_us ==
        doctest::Approx(40000.0));
  // A GPU without a figure: the first listed figure scaled by catalog speed (H100 4.5 / V100 1.0).
  CHECK(gpu_throughput(toy(), gpus().model(id("H100")), gpus(), profile) == doctest::Approx(450.0));
}

TEST_CASE("Perf.IterationModel.tier_selection") {
  auto profile = datasheet_profile();
  SUBCASE("one NVLink host: nvlink, capped by nothing below the profile") {
    auto s = make_gang_shape({{id("H100"), 8, 50, 0}}, gpus(), profile, {});
    CHECK(s.hosts == 1);
    CHECK(s.intra_tier == LinkTier::nvlink);
    CHECK(s.intra.beta_gbps == doctest::Approx(370));
  }
  // A measured profile (not a datasheet tier): the catalog's achieved figures do not apply,
  // its link rates still cap.
  auto measured = profile;
  for (auto& [tier, t] : measured.tiers) t.datasheet = false;
  SUBCASE("P100: its own achieved figure over the datasheet; NVLink 1 caps a measured 370 at 160 GB/s") {
    auto s = make_gang_shape({{id("P100"), 4, 3.125, 0}}, gpus(), profile, {});
    CHECK(s.intra.beta_gbps == doctest::Approx(72));
    CHECK(s.intra_beta_from == BetaSource::catalog);
    auto m = make_gang_shape({{id("P100"), 4, 3.125, 0}}, gpus(), measured, {});
    CHECK(m.intra.beta_gbps == doctest::Approx(160));
    CHECK(m.intra_beta_from == BetaSource::link_cap);
  }
  SUBCASE("PCIe GPUs: pcie tier, one direction of the link") {
    auto s = make_gang_shape({{id("T4"), 4, 12.5, 0}}, gpus(), profile, {});
    CHECK(s.intra_tier == LinkTier::pcie);
    CHECK(s.intra.beta_gbps == doctest::Approx(12));
    CHECK(make_gang_shape({{id("T4"), 4, 12.5, 0}}, gpus(), measured, {}).intra.beta_gbps == doctest::Approx(16));
  }
  SUBCASE("two hosts, one rack: nic") {
    auto s = make_gang_shape({{id("A100"), 8, 25, 0}, {id("A100"), 8, 25, 0}}, gpus(), profile, {});
    CHECK(s.inter_tier == LinkTier::nic);
    CHECK(s.host_line_gbps == doctest::Approx(25));
  }
  SUBCASE("two racks with a narrower uplink share: rack") {
    auto s = make_gang_shape({{id("A100"), 8, 25, 0}, {id("A100"), 8, 25, 1}}, gpus(), profile,
                             CrossRackRate{6.25, LinkTier::rack});
    CHECK(s.racks == 2);
    CHECK(s.inter_tier == LinkTier::rack);
    CHECK(s.host_line_gbps == doctest::Approx(6.25));
  }
}

TEST_CASE("Perf.IterationModel.hierarchical_phases") {
  auto profile = datasheet_profile();
  std::vector<ShapeHost> hosts = {{id("H100"), 8, 50, 0}, {id("H100"), 8, 50, 0}};
  auto shape = make_gang_shape(hosts, gpus(), profile, {});
  CommSettings cs;
  cs.algorithm = Algorithm::hierarchical;
  auto b = iteration_time(toy(), shape, cs, gpus(), profile);
  REQUIRE(b.phases.size() == 3);
  CHECK(b.phases[0].name == "intra-host reduce-scatter");
  CHECK(b.phases[1].ranks == 2);
  CHECK(b.phases[1].bytes == doctest::Approx(4e6 / 8));
  // Inter-host phase: 8 rings share the 50 GB/s NIC: β = min(47, 50/8) = 6.25 GB/s.
  CHECK(b.phases[1].us == doctest::Approx(2 * 1 * 2.3 + 2 * 0.5 * 5e5 / 6.25e3));
  CHECK(b.phases[2].us == doctest::Approx(b.phases[0].us));
}

TEST_CASE("Perf.ModelCatalog.shipped_file_and_errors") {
  auto cat = load_model_catalog(std::string(SCHEDLAB_SOURCE_DIR) + "/configs/models.yaml");
  CHECK(cat.models().size() >= 8);
  for (const char* m : {"resnet50", "resnet101", "inception3", "vgg16", "bert-large", "gpt2-1.5b", "llama2-7b", "dlrm"})
    CHECK_MESSAGE(cat.find(m) != nullptr, m);
  CHECK(cat.get("resnet50").gradient_bytes() == doctest::Approx(25.6e6 * 4));
  CHECK(cat.get("llama2-7b").gradient_bytes() == doctest::Approx(6.74e9 * 2));
  CHECK_THROWS_WITH_AS(cat.get("resnet5"), doctest::Contains("did you mean 'resnet50'"), util::InputError);
  CHECK_THROWS_WITH_AS(
      load_model_catalog_text("models:\n  - {name: a, params: 1, sample_per_s: {V100: 1}}\n", "m.yaml"),
      doctest::Contains("m.yaml:2"), util::InputError);
  CHECK_THROWS_WITH_AS(
      load_model_catalog_text("models:\n  - {name: a, params: -1, samples_per_s: {V100: 1}}\n", "m.yaml"),
      doctest::Contains("params"), util::InputError);
}

TEST_CASE("Perf.IterationModel.host_gpu_slowdown") {
  // toy at 0.1 per further GPU of the busiest host: compute 100 ms x (1 + 0.1 (g - 1)).
  static const ModelCatalog c = load_model_catalog_text(std::string(kToy) + "    host_gpu_slowdown: 0.1\n", "toy.yaml");
  const TrainingModel& m = c.models()[0];
  REQUIRE(m.host_gpu_slowdown == doctest::Approx(0.1));
  auto profile = datasheet_profile();
  struct Row {
    std::vector<int> host_gpus;
    double compute_us;
  };
  // The busiest host sets the pace; one GPU per host, or one GPU, pays nothing.
  const Row rows[] = {{{1}, 100000.0},    {{2}, 110000.0},         {{4}, 130000.0},
                      {{1, 1, 1, 1}, 100000.0}, {{2, 2}, 110000.0}, {{4, 1}, 130000.0}};
  for (const auto& r : rows) {
    std::vector<ShapeHost> hosts;
    for (int g : r.host_gpus) hosts.push_back({id("V100"), g, 10.0, 0});
    auto shape = make_gang_shape(hosts, gpus(), profile, {});
    auto b = iteration_time(m, shape, {}, gpus(), profile);
    CHECK_MESSAGE(b.compute_us == doctest::Approx(r.compute_us), r.host_gpus.size(), " hosts, first ", r.host_gpus[0]);
    CHECK(b.per_gpu_samples_per_s == doctest::Approx(10 / (r.compute_us * 1e-6)));
    // The same gang of a model without the key: the plain compute.
    CHECK(iteration_time(toy(), shape, {}, gpus(), profile).compute_us == doctest::Approx(100000.0));
  }
  // Out of [0, 1] or not a number: file:line: field.
  for (const char* bad : {"-0.1", "1.5", "fast"})
    CHECK_THROWS_WITH_AS(load_model_catalog_text(std::string(kToy) + "    host_gpu_slowdown: " + bad + "\n", "m.yaml"),
                         doctest::Contains("m.yaml:7: models[0].host_gpu_slowdown: "), util::InputError);
}

// The placement model prices a multi-host run again at each move of its fair share x: hosts'
// NICs capped at x, x across racks. The two halves (gang_hosts once, gang_shape_at per x) and
// the breakdown into reused storage must give make_gang_shape's and iteration_time's figures
// on the capped hosts, bit for bit, whatever the algorithm and whichever tier or cap binds.
TEST_CASE("Perf.GangShape.priced_at_a_share_as_capped_hosts") {
  const auto profile = datasheet_profile();
  const std::vector<std::vector<ShapeHost>> gangs = {
      {{id("A100"), 8, 25, 0}, {id("A100"), 8, 25, 0}},
      {{id("A100"), 3, 25, 0}, {id("A100"), 8, 25, 1}, {id("A100"), 1, 25, 2}},
      {{id("V100"), 4, 12.5, 0}, {id("A100"), 2, 25, 1}},
      {{id("T4"), 1, 12.5, 0}, {id("T4"), 4, 12.5, 0}},
      {{id("H100"), 8, 50, 0}},
      {},
  };
  IterationBreakdown reused;
  GangShape shape;
  for (Algorithm a : {Algorithm::ring, Algorithm::hierarchical, Algorithm::tree, Algorithm::parameter_server}) {
    CommSettings comm;
    comm.algorithm = a;
    comm.ps_sync_us = a == Algorithm::parameter_server ? 100 : 0;
    for (std::size_t g = 0; g < gangs.size(); ++g)
      for (double x : {0.0, 0.7, 3.125, 12.5, 14.285714285714286, 25.0, 1e9}) {
        CAPTURE(algorithm_name(a));
        CAPTURE(g);
        CAPTURE(x);
        auto capped = gangs[g];
        for (auto& h : capped) h.nic_gbps = std::min(h.nic_gbps, x);
        const CrossRackRate cross{x > 0 ? x : std::numeric_limits<double>::infinity(), LinkTier::rack};
        const GangShape want = make_gang_shape(capped, gpus(), profile, cross);
        gang_shape_at(gang_hosts(gangs[g], gpus()), profile, cross, x, shape);
        CHECK(shape.gpus == want.gpus);
        CHECK(shape.hosts == want.hosts);
        CHECK(shape.racks == want.racks);
        CHECK(shape.min_host_gpus == want.min_host_gpus);
        CHECK(shape.max_host_gpus == want.max_host_gpus);
        CHECK(shape.gpu_models == want.gpu_models);
        CHECK(shape.intra_tier == want.intra_tier);
        CHECK(shape.inter_tier == want.inter_tier);
        CHECK(shape.intra.beta_gbps == want.intra.beta_gbps);
        CHECK(shape.inter.beta_gbps == want.inter.beta_gbps);
        CHECK(shape.intra.alpha_us == want.intra.alpha_us);
        CHECK(shape.inter.alpha_us == want.inter.alpha_us);
        CHECK(shape.host_line_gbps == want.host_line_gbps);
        CHECK(shape.intra_beta_from == want.intra_beta_from);
        CHECK(shape.inter_beta_from == want.inter_beta_from);
        if (want.gpu_models.empty()) continue;  // no GPU, no iteration to price
        const IterationBreakdown b = iteration_time(toy(), want, comm, gpus(), profile);
        iteration_time(toy(), shape, comm, gpus(), profile, reused);
        CHECK(reused.iteration_us == b.iteration_us);
        CHECK(reused.comm_us == b.comm_us);
        CHECK(reused.hidden_us == b.hidden_us);
        CHECK(reused.samples_per_s == b.samples_per_s);
        CHECK(reused.gpu == b.gpu);
        CHECK(reused.bottleneck == b.bottleneck);
        REQUIRE(reused.phases.size() == b.phases.size());
        for (std::size_t k = 0; k < b.phases.size(); ++k) {
          CHECK(reused.phases[k].name == b.phases[k].name);
          CHECK(reused.phases[k].us == b.phases[k].us);
        }
      }
  }
}
