// α-β fitting: exact recovery on synthetic rings, constraints, and the fit on every real
// nccl-tests log in ../shared (within 15% for sizes >= 1 MiB), plus the shipped profiles.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "calib/alpha_beta_fit.h"
#include "calib/nccl_tests_log.h"
#include "perf/calibration_profile.h"
#include "util/error.h"

namespace fs = std::filesystem;
using schedlab::util::InputError;
using namespace schedlab::calib;
using schedlab::perf::LinkTier;

namespace {

std::vector<FitSample> synthetic(double alpha, double beta, std::vector<int> ranks) {
  schedlab::perf::TierParams t{alpha, beta, {}};
  std::vector<FitSample> out;
  for (int n : ranks)
    for (double b = 8; b <= 1 << 30; b *= 4) out.push_back({n, b, t.ring_us(n, b)});
  return out;
}

fs::path shared_nccl_dir() { return fs::path(SCHEDLAB_SHARED_DIR) / "nccl-tests"; }

}  // namespace

TEST_CASE("Calib.AlphaBetaFit.bandwidths") {
  // a100x8 log, 1 MiB: 78.77 us -> algbw 13.31, busbw 23.29
  Bandwidths b = allreduce_bandwidths(1048576, 78.77, 8);
  CHECK(b.algbw == doctest::Approx(13.312).epsilon(1e-3));
  CHECK(b.busbw == doctest::Approx(b.algbw * 1.75));
  CHECK(allreduce_bandwidths(1048576, 6.69, 1).busbw == 0.0);
  CHECK(allreduce_bandwidths(64, 10, 2).busbw == allreduce_bandwidths(64, 10, 2).algbw);
  CHECK(allreduce_bandwidths(64, 0, 2).algbw == 0.0);
}

TEST_CASE("Calib.AlphaBetaFit.recovers_exact_ring") {
  AlphaBetaFit fit = fit_alpha_beta(synthetic(2.5, 150.0, {2, 4, 8}));
  CHECK(fit.alpha_us == doctest::Approx(2.5).epsilon(1e-9));
  CHECK(fit.beta_gbps == doctest::Approx(150.0).epsilon(1e-9));
  CHECK(fit.max_model_error < 1e-9);
  CHECK(fit.sizes.size() == 3 * 14);  // 8 B, 32 B, ... 256 MiB at three rank counts
  auto corr = correction_table(fit.alpha_us, fit.beta_gbps, synthetic(2.5, 150.0, {2, 4, 8}));
  REQUIRE(corr.size() == 14);
  for (const auto& c : corr) CHECK(c.factor == doctest::Approx(1.0));
}

TEST_CASE("Calib.AlphaBetaFit.correction_reproduces_each_size") {
  // A ring whose small messages cost twice the model: the table carries the difference.
  auto samples = synthetic(1.0, 100.0, {8});
  for (auto& s : samples)
    if (s.bytes < 65536) s.time_us *= 2.0;
  AlphaBetaFit report;
  schedlab::perf::TierParams t = fit_tier(samples, &report);
  CHECK(t.alpha_us > 0);
  CHECK(t.beta_gbps > 0);
  for (const auto& s : samples) CHECK(t.predict_allreduce_us(8, s.bytes) == doctest::Approx(s.time_us).epsilon(1e-3));
  CHECK(report.max_corrected_error < 1e-3);
  CHECK(report.max_model_error > 0.1);
  std::ostringstream out;
  print_fit_report(report, "nvlink", out);
  CHECK(out.str().find("tier nvlink: alpha =") != std::string::npos);
}

TEST_CASE("Calib.AlphaBetaFit.constraints") {
  SUBCASE("alpha would be negative: clamped to 0, beta fitted alone") {
    std::vector<FitSample> s = {{2, 1e6, 5.0}, {2, 2e6, 12.0}, {2, 4e6, 26.0}};
    AlphaBetaFit fit = fit_alpha_beta(s);
    CHECK(fit.alpha_us == 0.0);
    CHECK(fit.beta_gbps > 0);
  }
  SUBCASE("one size only") { CHECK_THROWS_AS(fit_alpha_beta({{8, 1024, 10}, {8, 1024, 11}}), InputError); }
  SUBCASE("one rank only: nothing crosses a link") {
    CHECK_THROWS_WITH_AS(fit_alpha_beta({{1, 8, 4}, {1, 1024, 5}, {1, 1 << 20, 7}}),
                         doctest::Contains("2 or more ranks"), InputError);
  }
  SUBCASE("times that shrink with size") { CHECK_THROWS_AS(fit_alpha_beta({{4, 1e6, 50}, {4, 1e8, 5}}), InputError); }
}

TEST_CASE("Calib.AlphaBetaFit.shared_logs_within_15_percent") {
  if (!fs::is_directory(shared_nccl_dir())) {
    MESSAGE("skipped: " << shared_nccl_dir().string() << " is absent");
    return;
  }
  int fitted = 0;
  for (const auto& entry : fs::directory_iterator(shared_nccl_dir())) {
    if (entry.path().extension() != ".log") continue;
    CAPTURE(entry.path().string());
    NcclTestsLog log = parse_nccl_tests_log(entry.path().string());
    ImportOptions io;
    io.tier = LinkTier::nvlink;
    if (log.ranks < 2) {
      CHECK_THROWS_WITH_AS(profile_from_nccl_tests({log}, io), doctest::Contains("1 rank"), InputError);
      continue;
    }
    AlphaBetaFit report;
    schedlab::perf::CalibrationProfile p = profile_from_nccl_tests({log}, io, &report);
    const auto& tier = p.tier(LinkTier::nvlink);
    double worst = 0;
    for (const auto& r : log.rows) {
      if (r.bytes < 1048576) continue;
      double predicted = p.predict_allreduce_us(LinkTier::nvlink, log.ranks, r.bytes);
      for (double measured : {r.oop_time_us, r.ip_time_us}) worst = std::max(worst, std::abs(predicted / measured - 1));
    }
    MESSAGE(entry.path().filename().string()
            << ": alpha " << tier.alpha_us << " us, beta " << tier.beta_gbps << " GB/s, alpha-beta line max error "
            << report.max_model_error << ", profile max error >= 1 MiB " << worst);
    CHECK(worst < 0.15);
    CHECK(p.measurements.size() == 2 * log.rows.size());
    // What is written reads back the same.
    std::ostringstream out;
    write_profile(p, out);
    auto back = schedlab::perf::load_profile_text(out.str(), "roundtrip.yaml");
    CHECK(back.tier(LinkTier::nvlink).alpha_us == tier.alpha_us);
    CHECK(back.tier(LinkTier::nvlink).beta_gbps == tier.beta_gbps);
    CHECK(back.tier(LinkTier::nvlink).corrections.size() == tier.corrections.size());
    ++fitted;
  }
  CHECK(fitted == 5);
}

TEST_CASE("Calib.AlphaBetaFit.shipped_profiles_match_their_logs") {
  const fs::path configs = fs::path(SCHEDLAB_SOURCE_DIR) / "configs" / "calibration";
  if (!fs::is_directory(shared_nccl_dir()) || !fs::is_directory(configs)) {
    MESSAGE("skipped: shared logs or configs/calibration absent");
    return;
  }
  struct Shipped {
    const char* profile;
    const char* log;
    LinkTier tier;
  };
  const Shipped shipped[] = {
      {"h100_nvswitch_8gpu.yaml", "h100x8_p5_1node_nvswitch.log", LinkTier::nvlink},
      {"h100_p5_efa_2node.yaml", "h100x16_p5_2node_efa.log", LinkTier::nic},
      {"a100_nvswitch_8gpu.yaml", "a100x8_sxm4_40gb_1node.log", LinkTier::nvlink},
      {"v100_dgx2_12gpu.yaml", "v100x12_dgx2_1node_oldformat.log", LinkTier::nvlink},
      {"a10g_tcp_2node.yaml", "a10g_2node_tcp_socket_oldformat.log", LinkTier::nic},
  };
  for (const auto& s : shipped) {
    CAPTURE(std::string(s.profile));
    if (!fs::exists(configs / s.profile)) {
      FAIL_CHECK("missing " << s.profile);
      continue;
    }
    auto p = schedlab::perf::load_profile((configs / s.profile).string());
    CHECK(p.provenance.source == "nccl-tests");
    NcclTestsLog log = parse_nccl_tests_log((shared_nccl_dir() / s.log).string());
    for (const auto& r : log.rows) {
      if (r.bytes < 1048576) continue;
      double predicted = p.predict_allreduce_us(s.tier, log.ranks, r.bytes);
      CHECK(std::abs(predicted / r.oop_time_us - 1) < 0.15);
      CHECK(std::abs(predicted / r.ip_time_us - 1) < 0.15);
    }
  }
}
