// The GPU catalog's default collective figures against the public nccl-tests tables in
// ../shared/nccl-tests: for each table of a catalog GPU, the default ring allreduce bus
// bandwidth (built-in datasheet profile, configs/gpus.yaml, a host NIC of the catalog's
// nic_gbps) at 1 GiB is within 25% of the table's. Every table is either checked here or left
// out with its reason, so a new table needs a decision.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include "calib/nccl_tests_log.h"
#include "config/cluster_config.h"
#include "perf/calibration_profile.h"
#include "perf/collective_cost.h"
#include "perf/gang_shape.h"

namespace fs = std::filesystem;
using namespace schedlab;

namespace {
struct TableCase {
  const char* gpu;  // catalog model
  int hosts;
  int gpus_per_host;
};

// The tables of catalog GPUs, and the shape each was run on (../shared/nccl-tests/README.md).
const std::map<std::string, TableCase> kChecked = {
    {"a100x8_sxm4_40gb_1node.log", {"A100", 1, 8}},
    {"h100x8_p5_1node_nvswitch.log", {"H100", 1, 8}},
    {"h100x16_p5_2node_efa.log", {"H100", 2, 8}},
    {"v100x12_dgx2_1node_oldformat.log", {"V100", 1, 12}},
};
const std::map<std::string, std::string> kLeftOut = {
    {"a10g_1rank_oldformat.log", "one rank: busbw is 0 by definition"},
    {"a10g_2node_tcp_socket_oldformat.log",
     "A10G over NCCL's TCP socket transport; the catalog's NIC figures assume RDMA (EFA/InfiniBand)"},
};

double table_busbw_at(const calib::NcclTestsLog& log, double bytes) {
  for (const auto& r : log.rows)
    if (r.bytes == bytes) return r.oop_busbw;
  return -1;
}
}  // namespace

TEST_CASE("Perf.Catalog.default_busbw_matches_nccl_tests") {
  const fs::path dir = fs::path(SCHEDLAB_SHARED_DIR) / "nccl-tests";
  if (!fs::is_directory(dir)) {
    MESSAGE("skipped: " << dir.string() << " is absent");
    return;
  }
  const auto catalog = config::load_catalog((fs::path(SCHEDLAB_SOURCE_DIR) / "configs" / "gpus.yaml").string());
  const auto profile = perf::datasheet_profile();
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".log") continue;
    CAPTURE(name);
    if (kLeftOut.count(name)) {
      MESSAGE("left out " << name << ": " << kLeftOut.at(name));
      continue;
    }
    REQUIRE_MESSAGE(kChecked.count(name) == 1, "a new nccl-tests table: check it here or leave it out with a reason");
    const TableCase& c = kChecked.at(name);
    const auto log = calib::parse_nccl_tests_log(entry.path().string());
    const double table = table_busbw_at(log, kGiB);
    REQUIRE(table > 0);
    const auto model = catalog.find(c.gpu);
    REQUIRE(model.has_value());
    const auto& m = catalog.model(*model);
    CHECK(m.nic_gbps > 0);
    std::vector<perf::ShapeHost> hosts;
    for (int h = 0; h < c.hosts; ++h) hosts.push_back({*model, c.gpus_per_host, m.nic_gbps, 0});
    const auto shape = perf::make_gang_shape(hosts, catalog, profile, {});
    const int n = c.hosts * c.gpus_per_host;
    // One flat ring over all ranks: inside one host on the intra tier, else on the inter tier.
    const double us = perf::ring_allreduce_us(n, kGiB, c.hosts == 1 ? shape.intra : shape.inter);
    const double busbw = kGiB / (us * 1e3) * 2.0 * (n - 1) / n;
    MESSAGE(name << ": " << std::string(c.gpu) << " " << c.hosts << "x" << c.gpus_per_host << " default busbw " << busbw
                 << " GB/s, table " << table << " GB/s (" << 100 * (busbw / table - 1) << "%)");
    CHECK(std::abs(busbw / table - 1) <= 0.25);
    ++checked;
  }
  CHECK(checked == static_cast<int>(kChecked.size()));
}

TEST_CASE("Perf.Catalog.every_gpu_cites_its_figures") {
  const auto catalog = config::load_catalog((fs::path(SCHEDLAB_SOURCE_DIR) / "configs" / "gpus.yaml").string());
  for (const auto& m : catalog.models()) {
    CAPTURE(m.name);
    CHECK(m.intra_busbw_gbps > 0);
    CHECK(!m.intra_source.empty());
    CHECK(m.nic_gbps > 0);
    CHECK(m.nic_busbw_gbps > 0);
    CHECK(!m.nic_source.empty());
  }
}

TEST_CASE("Perf.Catalog.figures_replace_only_datasheet_tiers") {
  // The A100's own figure over the datasheet profile; a measured tier is kept.
  cluster::GpuModel a100{"A100", 80, 80, 2.2, "nvlink3", 600, 64, 203, "test", 200, 188, "test"};
  cluster::GpuCatalog catalog({a100});
  const std::vector<perf::ShapeHost> two_hosts = {{0, 8, 200, 0}, {0, 8, 200, 0}};
  auto d = perf::make_gang_shape(two_hosts, catalog, perf::datasheet_profile(), {});
  CHECK(d.intra.beta_gbps == 203);
  CHECK(d.intra_beta_from == perf::BetaSource::catalog);
  CHECK(d.inter.beta_gbps == 188);
  CHECK(d.inter_beta_from == perf::BetaSource::catalog);
  perf::CalibrationProfile measured = perf::datasheet_profile();
  measured.tiers[perf::LinkTier::nvlink] = {1.0, 250.0, {}};
  auto m = perf::make_gang_shape(two_hosts, catalog, measured, {});
  CHECK(m.intra.beta_gbps == 250);
  CHECK(m.intra_beta_from == perf::BetaSource::profile);
  // A thin host line binds across hosts: 10 GB/s * 2 * 15 / 16.
  const std::vector<perf::ShapeHost> thin = {{0, 8, 10, 0}, {0, 8, 10, 0}};
  auto t = perf::make_gang_shape(thin, catalog, perf::datasheet_profile(), {});
  CHECK(t.inter.beta_gbps == doctest::Approx(18.75));
  CHECK(t.inter_beta_from == perf::BetaSource::host_line);
}
