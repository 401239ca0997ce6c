// Perf inputs that would give a zero, infinite or absurd speed are refused naming the file and
// field: calibration profiles (R18), models.yaml (R19), and the placement model's own speeds.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "../support/input_errors.h"
#include "config/cluster_config.h"
#include "perf/calibration_profile.h"
#include "perf/model_catalog.h"
#include "perf/perf_registry.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::testing;
using namespace schedlab::perf;

TEST_CASE("Perf.Robustness.profile_figures_in_sense_ranges") {
  struct Case {
    const char* text;
    long line;
    const char* field;
    const char* says;
  };
  const Case cases[] = {
      // R18: alpha 1e300 / beta 1e-300 made 32-GPU jobs finish in 0 s.
      {"tiers:\n  nvlink: {alpha_us: 1e300, beta_gbps: 1e-300}\n", 2, "tiers.nvlink.alpha_us",
       "1e+300 is out of range [0, 1000000]"},
      {"tiers:\n  nic: {alpha_us: 2, beta_gbps: 1e-300}\n", 2, "tiers.nic.beta_gbps", "is out of range [0.001, 1000000]"},
      {"tiers:\n  nic: {alpha_us: 2, beta_gbps: 40, corrections: [[8, 1e9]]}\n", 2, "tiers.nic.corrections[0]",
       "1000000000 is out of range [0.001, 1000]"},
      {"compute:\n  H100: {fp16: 1e300}\n", 2, "compute.H100.fp16", "is out of range [1e-06, 1000000]"},
      {"measurements:\n  - {ranks: 4294967296}\n", 2, "measurements[0].ranks", "is out of range [1, 16777216]"},
      {"tiers:\n  [nic]: {alpha_us: 2, beta_gbps: 40}\n", 2, "tiers", "a key must be a plain name"},
  };
  for (const auto& c : cases) {
    CAPTURE(std::string(c.text));
    auto e = input_error_of([&] { load_profile_text(c.text, "p.yaml"); });
    CHECK(e.file() == "p.yaml");
    CHECK(e.line() == c.line);
    CHECK(e.field() == c.field);
    CHECK_MESSAGE(says(e, c.says), std::string(e.what()));
  }
  // R20 for profiles: a folder was a stream exception (and a leak in yaml-cpp).
  auto e = input_error_of([] { load_profile(std::string(SCHEDLAB_SOURCE_DIR) + "/configs"); });
  CHECK_MESSAGE(says(e, "is a folder, expected a file"), std::string(e.what()));
}

TEST_CASE("Perf.Robustness.models_figures_in_sense_ranges") {
  // R19: batch 2^32 became int 0, then speed 0 and an assert.
  const char* base = "models:\n  - {name: m, params: 1e6, samples_per_s: {V100: 100}, ";
  struct Case {
    const char* tail;
    const char* field;
    const char* says;
  };
  const Case cases[] = {
      {"batch: 4294967296}\n", "models[0].batch", "4294967296 is out of range [1, 16777216]"},
      {"batch: 0}\n", "models[0].batch", "0 is out of range [1, 16777216]"},
      {"flops_per_sample: 1e-300}\n", "models[0].flops_per_sample", "is out of range [1, 1e+21]"},
      {"efficiency: 1.5}\n", "models[0].efficiency", "1.5 is out of range [1e-06, 1]"},
  };
  for (const auto& c : cases) {
    CAPTURE(std::string(c.tail));
    auto e = input_error_of([&] { load_model_catalog_text(std::string(base) + c.tail, "models.yaml"); });
    CHECK(e.file() == "models.yaml");
    CHECK(e.line() == 2);
    CHECK(e.field() == c.field);
    CHECK_MESSAGE(says(e, c.says), std::string(e.what()));
  }
  auto e = input_error_of([] {
    load_model_catalog_text("models:\n  - {name: m, params: 1e6, samples_per_s: {V100: 1e-300}}\n", "m.yaml");
  });
  CHECK(e.field() == "models[0].samples_per_s.V100");
}

TEST_CASE("Perf.Robustness.placement_model_refuses_absurd_speeds") {
  // Every figure within its own range, but together absurd: 10^15 parameters allreduced over a
  // 25 GB/s NIC against a one-GPU reference that computes a sample in a nanosecond. The speed
  // (~1e-14) would make a run last for ever; the model refuses it naming the models file.
  const std::string src = SCHEDLAB_SOURCE_DIR;
  const auto catalog = config::load_catalog(src + "/configs/gpus.yaml");
  cluster::ClusterSpec spec;
  spec.name = "t";
  cluster::RackSpec r;
  r.name = "r";
  r.hosts.push_back({2, 8, *catalog.find("A100"), 25.0});
  spec.racks.push_back(r);
  cluster::Topology topo(spec, catalog);

  const std::string models =
      (std::filesystem::temp_directory_path() / ("schedlab-models-" + std::to_string(::getpid()) + ".yaml")).string();
  {
    std::ofstream out(models);
    out << "models:\n  - {name: huge, params: 1e15, batch: 1, samples_per_s: {A100: 1e9}}\n";
  }
  auto perf = make_perf_model("placement", {{"models", models}, {"reference", "one-gpu"}, {"contention", "false"}},
                              src + "/scenarios/x.yaml", topo, 1);
  workload::JobSpec job;
  job.tasks = 2;
  job.gpus_per_task = 8;
  job.duration = 3600'000'000;
  job.line = 7;
  cluster::Placement p;
  p.tasks.push_back({0, 8, 0, 0});
  p.tasks.push_back({1, 8, 0, 0});
  auto e = input_error_of([&] { perf->speed(job, p, topo); });
  CHECK(e.file() == models);
  CHECK_MESSAGE(says(e, "training model 'huge' (job on trace line 7, 16 GPUs) a speed of"), std::string(e.what()));
  CHECK_MESSAGE(says(e, "outside [1e-09, 1000000000]"), std::string(e.what()));
  std::remove(models.c_str());
}
