// The offered load, hand-worked: GPU-hours asked over the submission span times the GPUs,
// overall and per model (a job's hours shared over its allowed models by their GPU counts).
#include <doctest/doctest.h>

#include "../support/sim_harness.h"
#include "metrics/offered_load.h"

using namespace schedlab;
using namespace schedlab::testing;

namespace {
constexpr cluster::ModelMask ol_bit(cluster::ModelId m) { return cluster::ModelMask{1} << m; }
}  // namespace

TEST_CASE("Metrics.OfferedLoad.hand_worked") {
  const auto catalog = small_catalog();
  // 8 V100s and 8 A100s; no H100, H200.
  const std::vector<std::uint64_t> gpus = {8, 8, 0, 0};
  metrics::OfferedLoadTally t;
  // Over 10 h of submissions: 40 GPU-hours on V100 only, 80 on either (40 each by GPU counts),
  // 16 on H100 only (absent: overall only).
  t.add(0, 40, ol_bit(kV100));
  t.add(3600 * 5, 80, catalog.all() | cluster::kHostsWithoutGpus);  // the CPU-host bit is ignored
  t.add(3600 * 10, 16, ol_bit(kH100));
  const auto r = t.result(catalog, gpus);
  CHECK(r.span_h == doctest::Approx(10));
  CHECK(r.gpu_hours == doctest::Approx(136));
  CHECK(r.gpus == 16);
  REQUIRE(r.overall);
  CHECK(*r.overall == doctest::Approx(136.0 / (10 * 16)));  // 0.85
  REQUIRE(r.by_model.size() == 2);  // models the cluster has, in catalog order
  CHECK(r.by_model[0].first == "V100");
  CHECK(*r.by_model[0].second == doctest::Approx((40.0 + 40) / (10 * 8)));  // 1.0
  CHECK(r.by_model[1].first == "A100");
  CHECK(*r.by_model[1].second == doctest::Approx(40.0 / (10 * 8)));  // 0.5
  CHECK(metrics::offered_load_text(r) ==
        "offered load 0.85 (136.0 GPU-hours asked over 10.0 h of submissions, on 16 GPUs); per GPU model: V100 1.00, "
        "A100 0.50");
  CHECK_FALSE(metrics::overload_text(r));  // 1.00 is not above 1
}

TEST_CASE("Metrics.OfferedLoad.overload_names_the_knobs") {
  const auto catalog = small_catalog();
  metrics::OfferedLoadTally t;
  t.add(0, 50, ol_bit(kA100));
  t.add(3600, 10, ol_bit(kV100));
  const auto r = t.result(catalog, {4, 4, 0, 0});
  REQUIRE(r.overall);
  CHECK(*r.overall == doctest::Approx(60.0 / 8));
  const auto w = metrics::overload_text(r);
  REQUIRE(w);
  CHECK(w->find("7.50 overall, V100 2.50, A100 12.50") != std::string::npos);
  CHECK(w->find("workload.arrival_scale") != std::string::npos);
  CHECK(w->find("workload.load") != std::string::npos);
}

TEST_CASE("Metrics.OfferedLoad.no_span_no_number") {
  const auto catalog = small_catalog();
  metrics::OfferedLoadTally t;
  t.add(100, 5, catalog.all());
  t.add(100, 5, catalog.all());
  const auto r = t.result(catalog, {4, 0, 0, 0});
  CHECK_FALSE(r.overall);
  CHECK_FALSE(r.by_model.at(0).second);
  CHECK(metrics::offered_load_text(r).find("all submitted at one instant") != std::string::npos);
  CHECK_FALSE(metrics::overload_text(r));
  // No jobs at all: nothing either.
  CHECK_FALSE(metrics::OfferedLoadTally{}.result(catalog, {4, 0, 0, 0}).overall);
}
