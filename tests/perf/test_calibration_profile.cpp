// Calibration profiles: the ring prediction and its correction table, YAML round trips, load
// errors with line numbers, and the datasheet defaults against configs/calibration/datasheet.yaml.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>

#include "perf/calibration_profile.h"
#include "util/error.h"

namespace fs = std::filesystem;
using schedlab::util::InputError;
using namespace schedlab::perf;

namespace {

const char* kFullProfile = R"(# a comment
provenance: {source: nccl-tests, host: node-a, gpu: NVIDIA H100 80GB HBM3, driver: "570.86", cuda: "12.8", nccl: 2.25.1, date: 2025-01-02, command: all_reduce_perf -b 8 -e 1G}
tiers:
  nvlink: {alpha_us: 8.5, beta_gbps: 370.0, corrections: [[8, 1.9], [1048576, 1.05]]}
  nic:
    alpha_us: 20
    beta_gbps: 45.5
compute:
  H100: {fp32: 51.0, fp16: 780.0, bf16: 780.0}
measurements:
  - {tier: nvlink, ranks: 8, bytes: 8, time_us: 20.1, algbw: 0.0, busbw: 0.0}
  - {kind: gemm_bf16, bytes: 134217728, time_us: 1400, tflops: 785.3}
)";

void check_equal(const CalibrationProfile& a, const CalibrationProfile& b) {
  CHECK(a.provenance.source == b.provenance.source);
  CHECK(a.provenance.host == b.provenance.host);
  CHECK(a.provenance.gpu == b.provenance.gpu);
  CHECK(a.provenance.driver == b.provenance.driver);
  CHECK(a.provenance.cuda == b.provenance.cuda);
  CHECK(a.provenance.nccl == b.provenance.nccl);
  CHECK(a.provenance.date == b.provenance.date);
  CHECK(a.provenance.command == b.provenance.command);
  REQUIRE(a.tiers.size() == b.tiers.size());
  for (const auto& [tier, t] : a.tiers) {
    CAPTURE(link_tier_name(tier));
    REQUIRE(b.has_tier(tier));
    const auto& u = b.tier(tier);
    CHECK(t.alpha_us == u.alpha_us);
    CHECK(t.beta_gbps == u.beta_gbps);
    CHECK(t.datasheet == u.datasheet);
    REQUIRE(t.corrections.size() == u.corrections.size());
    for (std::size_t i = 0; i < t.corrections.size(); ++i) {
      CHECK(t.corrections[i].bytes == u.corrections[i].bytes);
      CHECK(t.corrections[i].factor == u.corrections[i].factor);
    }
  }
  CHECK(a.compute == b.compute);
  REQUIRE(a.measurements.size() == b.measurements.size());
  for (std::size_t i = 0; i < a.measurements.size(); ++i) {
    const auto &m = a.measurements[i], &n = b.measurements[i];
    CHECK(m.kind == n.kind);
    CHECK(m.tier == n.tier);
    CHECK(m.ranks == n.ranks);
    CHECK(m.bytes == n.bytes);
    CHECK(m.time_us == n.time_us);
    CHECK(m.algbw == n.algbw);
    CHECK(m.busbw == n.busbw);
    CHECK(m.tflops == n.tflops);
  }
}

// The InputError a profile text raises, as "line|field|message".
std::string load_error(const std::string& text) {
  try {
    load_profile_text(text, "p.yaml");
  } catch (const InputError& e) {
    return std::to_string(e.line()) + "|" + e.field() + "|" + e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("Perf.CalibrationProfile.names") {
  for (LinkTier t : kAllLinkTiers) CHECK(link_tier_from_name(link_tier_name(t)) == t);
  CHECK_FALSE(link_tier_from_name("nvswitch").has_value());
  CHECK(link_tier_names().size() == 5);
  for (Dtype d : kAllDtypes) CHECK(dtype_from_name(dtype_name(d)) == d);
  CHECK_FALSE(dtype_from_name("fp8").has_value());
  CHECK(gpu_model_from_device_name("NVIDIA H100 80GB HBM3") == "H100");
  CHECK(gpu_model_from_device_name("Tesla V100-SXM3-32GB") == "V100");
  CHECK(gpu_model_from_device_name("NVIDIA A100-SXM4-40GB") == "A100");
  CHECK(gpu_model_from_device_name("NVIDIA A10G") == "A10G");
}

TEST_CASE("Perf.CalibrationProfile.ring_time") {
  TierParams t{2.0, 100.0, {}};
  // 8 ranks, 1 GB: 14·2 µs + 1.75 · 1e9 B / (100e9 B/s) = 28 µs + 17500 µs
  CHECK(t.ring_us(8, 1e9) == doctest::Approx(28.0 + 17500.0));
  CHECK(t.ring_us(2, 0) == doctest::Approx(4.0));
  CHECK(t.ring_us(1, 1e9) == 0.0);
  CHECK(t.predict_allreduce_us(8, 1e9) == t.ring_us(8, 1e9));
}

TEST_CASE("Perf.CalibrationProfile.correction_interpolation") {
  TierParams t{1.0, 100.0, {{1024, 2.0}, {1048576, 1.0}}};
  CHECK(t.correction(8) == 2.0);  // clamped below
  CHECK(t.correction(1024) == 2.0);
  CHECK(t.correction(32768) == doctest::Approx(1.5));  // halfway in log(size)
  CHECK(t.correction(1048576) == 1.0);
  CHECK(t.correction(1e12) == 1.0);  // clamped above
  CHECK(t.predict_allreduce_us(4, 32768) == doctest::Approx(1.5 * t.ring_us(4, 32768)));
  CHECK(TierParams{1.0, 1.0, {}}.correction(5) == 1.0);
}

TEST_CASE("Perf.CalibrationProfile.missing_tier") {
  CalibrationProfile p;
  p.tiers[LinkTier::nvlink] = {1, 100, {}};
  CHECK(p.predict_allreduce_us(LinkTier::nic, 1, 1e6) == 0.0);  // one rank: no link crossed
  CHECK_THROWS_WITH_AS(p.predict_allreduce_us(LinkTier::nic, 4, 1e6),
                       doctest::Contains("no 'nic' tier; it has: nvlink"), InputError);
}

TEST_CASE("Perf.CalibrationProfile.load_full_schema") {
  CalibrationProfile p = load_profile_text(kFullProfile, "full.yaml");
  CHECK(p.provenance.source == "nccl-tests");
  CHECK(p.provenance.gpu == "NVIDIA H100 80GB HBM3");
  CHECK(p.provenance.cuda == "12.8");
  REQUIRE(p.has_tier(LinkTier::nvlink));
  CHECK(p.tier(LinkTier::nvlink).alpha_us == 8.5);
  CHECK(p.tier(LinkTier::nvlink).corrections.size() == 2);
  CHECK(p.tier(LinkTier::nic).beta_gbps == 45.5);
  CHECK(p.tier(LinkTier::nic).corrections.empty());
  CHECK_FALSE(p.has_tier(LinkTier::pcie));
  CHECK(p.tflops("H100", Dtype::bf16) == 780.0);
  CHECK_FALSE(p.tflops("A100", Dtype::bf16).has_value());
  REQUIRE(p.measurements.size() == 2);
  CHECK(p.measurements[0].kind == "allreduce");
  CHECK(p.measurements[0].ranks == 8);
  CHECK(p.measurements[1].tflops == 785.3);
  // ring time at 8 ranks, 8 B: 14·8.5 µs (+ tiny) times 1.9
  CHECK(p.predict_allreduce_us(LinkTier::nvlink, 8, 8) == doctest::Approx(1.9 * (14 * 8.5 + 1.75 * 8 / 370e3)));
}

TEST_CASE("Perf.CalibrationProfile.round_trip") {
  for (const CalibrationProfile& p : {load_profile_text(kFullProfile, "full.yaml"), datasheet_profile()}) {
    std::ostringstream out;
    write_profile(p, out);
    CAPTURE(out.str());
    check_equal(p, load_profile_text(out.str(), "written.yaml"));
  }
  CalibrationProfile odd;
  odd.provenance.command = "x \"quoted\" \\ back: slash # not a comment";
  odd.provenance.nccl = "2.28";  // must stay text
  odd.provenance.host = "yes";
  std::ostringstream out;
  write_profile(odd, out);
  check_equal(odd, load_profile_text(out.str(), "odd.yaml"));
}

TEST_CASE("Perf.CalibrationProfile.load_errors") {
  CHECK(load_error("provenance: {source: measured}\ntier:\n  nvlink: {alpha_us: 1, beta_gbps: 2}\n")
            .starts_with("2|profile|p.yaml:2: profile: unknown key 'tier'; did you mean 'tiers'?"));
  CHECK(
      load_error("tiers:\n  nvlink:\n    alpha_us: 1\n    beta_gbps: 2\n    beta: 3\n").starts_with("5|tiers.nvlink|"));
  CHECK(load_error("tiers:\n  nvlnk: {alpha_us: 1, beta_gbps: 2}\n").find("did you mean 'nvlink'") !=
        std::string::npos);
  CHECK(load_error("tiers:\n  nic: {alpha_us: fast, beta_gbps: 2}\n")
            .starts_with("2|tiers.nic.alpha_us|p.yaml:2: tiers.nic.alpha_us: 'fast' is not a number"));
  CHECK(load_error("tiers:\n  nic: {alpha_us: 1, beta_gbps: 0}\n").find("0 is out of range [0.001, 1000000]") !=
        std::string::npos);
  CHECK(load_error("tiers:\n  nic: {alpha_us: 1}\n").find("missing 'beta_gbps'") != std::string::npos);
  CHECK(load_error("tiers:\n  nic:\n    alpha_us: 1\n    beta_gbps: 2\n    corrections:\n      - [1024, 1.1]\n"
                   "      - [512, 1.0]\n")
            .starts_with("7|tiers.nic.corrections[1]|"));
  CHECK(load_error("tiers:\n  nic: {alpha_us: 1, beta_gbps: 2, corrections: [[8, 1, 2]]}\n")
            .find("expected [bytes, factor]") != std::string::npos);
  CHECK(load_error("compute:\n  H100: {fp32: 51, fp8: 1000}\n").starts_with("2|compute.H100|"));
  CHECK(load_error("provenance:\n  source: guessed\n").find("unknown source 'guessed'") != std::string::npos);
  CHECK(load_error("measurements:\n  - {tier: nvlink, ranks: 0}\n").find("0 is out of range [1, 16777216]") !=
        std::string::npos);
  CHECK(load_error("measurements:\n  - {tier: nvlink, rank: 8}\n").starts_with("2|measurements[0]|"));
  CHECK(load_error("tiers: {nvlink: [1, 2\n").starts_with("2||p.yaml:2:"));  // YAML syntax error
  CHECK(load_error("") == "0||p.yaml: empty calibration profile");
  CHECK_THROWS_WITH_AS(load_profile("/nonexistent/profile.yaml"),
                       doctest::Contains("/nonexistent/profile.yaml: cannot open file (no such file)"), InputError);
}

TEST_CASE("Perf.CalibrationProfile.datasheet") {
  CalibrationProfile d = datasheet_profile();
  CHECK(d.provenance.source == "datasheet");
  for (LinkTier t : kAllLinkTiers) CHECK(d.has_tier(t));
  CHECK(d.tier(LinkTier::nvlink).beta_gbps == 370.0);
  CHECK(d.tflops("H100", Dtype::bf16) == 989.0);
  CHECK_FALSE(d.tflops("V100", Dtype::bf16).has_value());
  const fs::path shipped = fs::path(SCHEDLAB_SOURCE_DIR) / "configs" / "calibration" / "datasheet.yaml";
  if (!fs::exists(shipped)) {
    MESSAGE("skipped: " << shipped.string() << " is absent");
    return;
  }
  CalibrationProfile file = load_profile(shipped.string());
  file.provenance.date = d.provenance.date;  // the file records when it was written
  file.provenance.command = d.provenance.command;
  check_equal(d, file);
}

TEST_CASE("Perf.CalibrationProfile.overlay") {
  CalibrationProfile fitted;
  fitted.provenance.source = "nccl-tests";
  fitted.tiers[LinkTier::nvlink] = {1.0, 480.0, {{8, 1.5}}};
  fitted.compute["H100"][Dtype::bf16] = 790.0;
  CalibrationProfile p = overlay_profile(datasheet_profile(), fitted);
  CHECK(p.provenance.source == "nccl-tests");
  CHECK(p.tier(LinkTier::nvlink).beta_gbps == 480.0);
  CHECK(p.tier(LinkTier::nic).beta_gbps == 47.0);
  CHECK(p.tflops("H100", Dtype::bf16) == 790.0);
  CHECK(p.tflops("H100", Dtype::fp32) == 67.0);
}
