// Pollux's goodput (perf/goodput.h): statistical efficiency from the noise scale, worked by hand,
// and the best batch checked against a brute-force search over every whole batch per GPU.
#include <doctest/doctest.h>

#include <string>

#include "perf/goodput.h"
#include "perf/model_catalog.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::perf;

namespace {
StatisticalEfficiency eff_of(double m0, double max, std::vector<std::pair<double, double>> noise) {
  StatisticalEfficiency e;
  e.init_batch = m0;
  e.max_batch = max;
  e.noise = std::move(noise);
  e.source = "test";
  return e;
}
}  // namespace

TEST_CASE("Perf.Goodput.efficiency_from_the_noise_scale") {
  const auto e = eff_of(100, 10000, {{0.0, 100}, {1.0, 300}});
  CHECK(e.noise_scale(0.5) == doctest::Approx(200));  // linear in progress
  CHECK(e.noise_scale(-1) == 100);                     // flat outside the points
  CHECK(e.noise_scale(2) == 300);
  // E(M) = (phi + M0) / (phi + M): phi 200, M0 100, M 700 -> 300 / 900.
  CHECK(e.efficiency(0.5, 700) == doctest::Approx(1.0 / 3));
  CHECK(e.efficiency(0.5, 100) == 1);  // at M0 a sample is a sample
  CHECK(e.efficiency(0.5, 50) == 1);   // below M0 (no accumulation modelled): no gain claimed
  CHECK(StatisticalEfficiency{}.efficiency(0.5, 1e6) == 1);  // no parameters: throughput only
}

TEST_CASE("Perf.Goodput.step_time_and_throughput") {
  // 2 GPUs at 1,000 samples/s each, 50 ms of communication, half of compute can hide it.
  const StepCost step{2, 1000, 50'000, 0.5};
  const auto e = eff_of(100, 10000, {{0.0, 900}});
  // Batch 400: 200 per GPU = 200 ms compute; hidden min(50, 100) = 50 ms: 200 ms a step.
  const auto p = goodput_at(step, 400, e, 0);
  CHECK(p.iteration_us == doctest::Approx(200'000));
  CHECK(p.throughput == doctest::Approx(2000));
  CHECK(p.efficiency == doctest::Approx(1000.0 / 1300));
  CHECK(p.goodput == doctest::Approx(2000 * 1000.0 / 1300));
}

TEST_CASE("Perf.Goodput.best_batch_is_the_brute_force_best") {
  struct Case {
    StepCost step;
    double phi;
  };
  const Case cases[] = {
      {{1, 1000, 100'000, 0.0}, 1000},  // interior optimum sqrt(c phi / a) = sqrt(1e5) = 316.2
      {{8, 500, 30'000, 0.0}, 5000},
      {{8, 500, 30'000, 0.6}, 5000},    // overlap: the optimum may sit where compute hides all of c
      {{16, 2000, 5'000, 1.0}, 200},    // full overlap possible
      {{4, 800, 0, 0.0}, 3000},         // no communication: the smallest batch
      {{64, 100, 200'000, 0.3}, 40000}, // large noise scale: the largest batches pay
  };
  for (const auto& c : cases) {
    CAPTURE(c.step.gpus);
    CAPTURE(c.phi);
    const auto e = eff_of(100, 12800, {{0.0, c.phi}});
    const auto best = best_goodput(c.step, e, 0.3, 32);
    double brute = 0;
    const double n = c.step.gpus;
    for (double l = std::max(1.0, std::ceil(100 / n)); l * n <= 12800; ++l)
      brute = std::max(brute, goodput_at(c.step, l * n, e, 0.3).goodput);
    CHECK(best.goodput == doctest::Approx(brute).epsilon(1e-12));
    CHECK(best.batch >= 100);
    CHECK(best.batch <= 12800);
  }
  // The hand-worked one: 1 GPU, a = 1,000 us per sample, c = 100 ms, phi 1,000: M* = 316.2.
  const auto one = best_goodput({1, 1000, 100'000, 0.0}, eff_of(100, 12800, {{0.0, 1000}}), 0, 32);
  CHECK((one.batch == 316 || one.batch == 317));
  // Without parameters the batch per GPU stays fixed: 4 GPUs x 32.
  CHECK(best_goodput({4, 800, 10'000, 0.0}, StatisticalEfficiency{}, 0.5, 32).batch == 128);
}

TEST_CASE("Perf.Goodput.catalog_entries_and_their_errors") {
  auto cat = load_model_catalog(std::string(SCHEDLAB_SOURCE_DIR) + "/configs/models.yaml");
  const auto& e = cat.get("resnet50").stat_eff;
  REQUIRE(e.given());
  CHECK(e.init_batch == 200);
  CHECK(e.max_batch == 12800);
  CHECK(e.source.find("Pollux") != std::string::npos);
  CHECK(!cat.get("bert-large").stat_eff.given());  // throughput only
  auto error_of = [](const std::string& eff) {
    try {
      load_model_catalog_text("models:\n  - name: a\n    params: 1\n    samples_per_s: {V100: 1}\n"
                              "    statistical_efficiency: " + eff + "\n", "m.yaml");
    } catch (const util::InputError& err) {
      return std::string(err.what());
    }
    return std::string("no error");
  };
  const std::string ok = "init_batch: 100, max_batch: 1000, source: s";
  CHECK(error_of("{" + ok + ", noise_scale: [[0, 1], [1, 2]]}") == "no error");
  CHECK(error_of("{init_batch: 100, max_batch: 10, source: s, noise_scale: [[0, 1]]}")
            .find("m.yaml:5: models[0].statistical_efficiency.max_batch: 10 is below init_batch 100") !=
        std::string::npos);
  CHECK(error_of("{" + ok + ", noise_scale: [[0.5, 1], [0.5, 2]]}").find("does not follow 0.5") != std::string::npos);
  CHECK(error_of("{" + ok + ", noise_scale: [[1.5, 1]]}").find("noise_scale[0]") != std::string::npos);
  CHECK(error_of("{" + ok + ", noise_scale: [[0, -1]]}").find("noise_scale[0]") != std::string::npos);
  CHECK(error_of("{" + ok + ", noise_scale: []}").find("needs a list of [progress, noise scale] pairs") !=
        std::string::npos);
  CHECK(error_of("{init_batch: 100, max_batch: 1000, noise_scale: [[0, 1]]}").find("source: required key") !=
        std::string::npos);
}
