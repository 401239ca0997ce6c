// Validation of the placement model against published figures (docs/perf-model.md):
// (a) ring allreduce vs nccl-tests logs of 8xH100 (one host) and 16xH100 (two hosts);
// (b) Horovod's scaling efficiency on 128 Pascal GPUs over 25 GbE, ring vs parameter server;
// (c) a 16-GPU job spread over 4 oversubscribed racks vs the same job packed in one rack.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include "calib/alpha_beta_fit.h"
#include "calib/nccl_tests_log.h"
#include "config/cluster_config.h"
#include "perf/collective_cost.h"
#include "perf/gang_shape.h"
#include "perf/iteration_model.h"
#include "perf/perf_registry.h"

namespace fs = std::filesystem;
using namespace schedlab;
using namespace schedlab::perf;

namespace {

const std::string kSrc = SCHEDLAB_SOURCE_DIR;

struct Loaded {
  cluster::GpuCatalog catalog;
  cluster::ClusterSpec spec;
};

Loaded load(const std::string& cluster_file) {
  auto path = kSrc + "/configs/clusters/" + cluster_file;
  Loaded l{config::load_catalog(config::catalog_path_of(path)), {}};
  l.spec = config::load_cluster(path, l.catalog).spec;
  return l;
}

}  // namespace

TEST_CASE("Perf.Validation.ring_vs_nccl_tests") {
  fs::path dir = fs::path(SCHEDLAB_SHARED_DIR) / "nccl-tests";
  fs::path one = dir / "h100x8_p5_1node_nvswitch.log", two = dir / "h100x16_p5_2node_efa.log";
  if (!fs::exists(one) || !fs::exists(two)) {
    MESSAGE("skipped: " << dir.string() << " is absent");
    return;
  }
  auto log1 = calib::parse_nccl_tests_log(one.string());
  auto log2 = calib::parse_nccl_tests_log(two.string());
  REQUIRE(log1.ranks == 8);
  REQUIRE(log2.ranks == 16);
  // The profile `schedlab calibrate --from-nccl-tests` would write: nvlink from the one-host log,
  // nic from the two-host log, over the datasheet defaults.
  CalibrationProfile fitted;
  fitted.provenance.source = "nccl-tests";
  calib::AlphaBetaFit r1, r2;
  fitted.tiers[LinkTier::nvlink] = calib::fit_tier(calib::samples_from_log(log1), &r1);
  fitted.tiers[LinkTier::nic] = calib::fit_tier(calib::samples_from_log(log2), &r2);
  auto profile = overlay_profile(datasheet_profile(), fitted);

  cluster::GpuCatalog catalog = config::load_catalog(kSrc + "/configs/gpus.yaml");
  cluster::ModelId h100 = *catalog.find("H100");
  const double p5_nic = 400;  // 32 x EFAv2 100 Gb/s = 3200 Gb/s = 400 GB/s per host
  auto s8 = make_gang_shape({{h100, 8, p5_nic, 0}}, catalog, profile, {});
  auto s16 = make_gang_shape({{h100, 8, p5_nic, 0}, {h100, 8, p5_nic, 0}}, catalog, profile, {});
  CHECK(s8.intra_tier == LinkTier::nvlink);
  CHECK(s16.inter_tier == LinkTier::nic);

  auto check = [](const calib::NcclTestsLog& log, const TierParams& link, const char* what) {
    TierParams plain = link;
    plain.corrections.clear();
    double worst = 0, worst_plain = 0;
    int rows = 0;
    for (const auto& r : log.rows) {
      if (r.bytes < 1048576) continue;
      double model = ring_allreduce_us(log.ranks, r.bytes, link);
      double line = ring_allreduce_us(log.ranks, r.bytes, plain);
      for (double measured : {r.oop_time_us, r.ip_time_us}) {
        worst = std::max(worst, std::abs(model / measured - 1));
        worst_plain = std::max(worst_plain, std::abs(line / measured - 1));
      }
      ++rows;
    }
    MESSAGE(std::string(what) << ": alpha " << link.alpha_us << " us, beta " << link.beta_gbps << " GB/s; max error >= 1 MiB over "
                 << rows << " sizes: " << 100 * worst << "% (plain alpha-beta line: " << 100 * worst_plain << "%)");
    CHECK(rows >= 10);
    CHECK(worst < 0.15);
  };
  check(log1, s8.intra, "8xH100 one host (nvlink)");
  check(log2, s16.inter, "16xH100 two hosts (nic)");
}

namespace {

struct Efficiency {
  double ring = 0, ps = 0;
};

Efficiency horovod_efficiency(const char* model_name) {
  Loaded l = load("pascal-128-25gbe.yaml");
  cluster::Topology topo(l.spec, l.catalog);
  auto models = load_model_catalog(kSrc + "/configs/models.yaml");
  const auto& model = models.get(model_name);
  auto profile = datasheet_profile();
  std::vector<ShapeHost> all;
  for (const auto& h : topo.hosts()) all.push_back({h.model, h.gpus, h.nic_gbps, h.rack});
  REQUIRE(all.size() == 32);
  auto many = make_gang_shape(all, l.catalog, profile, {});
  auto one = make_gang_shape({{all[0].model, 1, all[0].nic_gbps, 0}}, l.catalog, profile, {});
  REQUIRE(many.gpus == 128);
  CommSettings cs;  // as in scenarios/horovod-scaling.yaml
  cs.overlap = 0.05;
  cs.fusion_bytes = 64.0 * 1024 * 1024;
  cs.ps_sync_us = 170e3;  // perf.ps_sync_ms: 170 (fitted; docs/perf-model.md)
  Efficiency e;
  for (Algorithm a : {Algorithm::ring, Algorithm::parameter_server}) {
    cs.algorithm = a;
    double t1 = iteration_time(model, one, cs, l.catalog, profile).samples_per_s;
    double tn = iteration_time(model, many, cs, l.catalog, profile).samples_per_s;
    (a == Algorithm::ring ? e.ring : e.ps) = tn / (128 * t1);
  }
  MESSAGE(std::string(model_name) << " on 128 P100, 25 GbE: ring " << 100 * e.ring << "%, parameter server " << 100 * e.ps << "%");
  return e;
}

}  // namespace

TEST_CASE("Perf.Validation.horovod_scaling") {
  // Sergeev & Del Balso 2018: ~88% for Inception V3 and ResNet-101 with Horovod (ring), ~50% with
  // standard distributed TensorFlow (parameter servers).
  auto inception = horovod_efficiency("inception3");
  auto resnet = horovod_efficiency("resnet101");
  CHECK(std::abs(inception.ring - 0.88) <= 0.05);
  CHECK(std::abs(resnet.ring - 0.88) <= 0.05);
  CHECK(std::abs(resnet.ps - 0.50) <= 0.05);
  CHECK(std::abs(inception.ps - 0.50) <= 0.05);
}

TEST_CASE("Perf.Validation.rack_spread_vs_pack") {
  Loaded l = load("oversub-4rack.yaml");
  cluster::Topology topo(l.spec, l.catalog);
  REQUIRE(topo.racks().size() == 4);
  auto model = make_perf_model("placement", {{"model_mix", "{bert-large: 1}"}, {"contention", "false"}},
                               kSrc + "/scenarios/x.yaml", topo, 1);
  workload::JobSpec job;
  job.tasks = 4;
  job.gpus_per_task = 4;
  job.duration = 3600'000'000;
  cluster::Placement packed, spread;
  for (cluster::HostId h : {0u, 1u, 2u, 3u}) packed.tasks.push_back({h, 4, 0, 0});   // rack 0
  for (cluster::HostId h : {0u, 4u, 8u, 12u}) spread.tasks.push_back({h, 4, 0, 0});  // one host per rack
  REQUIRE(packed.distinct_racks(topo) == 1);
  REQUIRE(spread.distinct_racks(topo) == 4);
  double sp = model->speed(job, packed, topo), ss = model->speed(job, spread, topo);
  MESSAGE("16 GPUs BERT-large, 4 hosts x 4 A100: packed speed " << sp << ", spread over 4 racks " << ss
                                                                  << " (run time x" << sp / ss << ")");
  CHECK(ss < sp * 0.9);
}
