// Fuzz targets of the YAML files: scenario, cluster, GPU catalog, models catalog and
// calibration profile.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "cluster/topology.h"
#include "config/cluster_config.h"
#include "config/scenario.h"
#include "fuzz_targets.h"
#include "perf/calibration_profile.h"
#include "perf/goodput.h"
#include "perf/model_catalog.h"
#include "run/scenario_run.h"
#include "sweep/sweep_spec.h"
#include "util/error.h"

namespace schedlab::fuzz {
namespace {

std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// The shipped GPU catalog, read once.
const cluster::GpuCatalog& shipped_catalog() {
  static const cluster::GpuCatalog catalog = config::load_catalog(sandbox_root() + "/configs/gpus.yaml");
  return catalog;
}

// Runs `body`; bad input (InputError, EnvironmentError) is an expected outcome.
template <class F>
int expected_errors_ok(F&& body) {
  try {
    body();
  } catch (const util::InputError&) {
  } catch (const util::EnvironmentError&) {
  }
  return 0;
}

void check_summary(const metrics::Summary& s) {
  for (const auto& [name, value] : s.figures()) {
    if (!metrics::has_value(value)) continue;  // no value (written as null): allowed
    expect(std::isfinite(value), "summary " + name + " is not finite");
    expect(value >= 0, "summary " + name + " is negative");
  }
  expect(!metrics::has_value(s.gpu_utilization) || s.gpu_utilization <= 1 + 1e-9, "GPU utilization above 1");
  expect(s.gpu_utilization_makespan <= 1 + 1e-9, "GPU utilization over the makespan above 1");
  expect(s.finished + s.dropped <= s.jobs, "more jobs finished or dropped than submitted");
}

}  // namespace

// A scenario with whatever it references (the sandbox mirrors the repository's layout).
// Valid scenarios are simulated on at most 200 jobs, without writing results; each variant's
// overrides are applied and validated.
int fuzz_scenario(const std::uint8_t* data, std::size_t size) {
  std::string path = write_input("tests/fixtures/scenarios/fuzz-input.yaml", data, size);
  return expected_errors_ok([&] {
    config::Scenario sc = config::load_scenario(path);
    for (std::size_t i = 0; i < sc.variants.size() && i < 4; ++i) config::load_scenario(path, sc.variants[i].sets);
    constexpr std::uint64_t kMaxJobs = 200;
    if (sc.workload.max_jobs == 0 || sc.workload.max_jobs > kMaxJobs) sc.workload.max_jobs = kMaxJobs;
    util::Notices notices;
    check_summary(run::run_scenario(sc, notices, "").summary);
  });
}

// A sweep file beside the e2e scenarios (`scenario: base.yaml` resolves): expanded, and a few
// cells checked against the grid and the manifest's round trip.
int fuzz_sweep(const std::uint8_t* data, std::size_t size) {
  std::string path = write_input("tests/fixtures/scenarios/fuzz-sweep.yaml", data, size);
  return expected_errors_ok([&] {
    const sweep::SweepSpec spec = sweep::load_sweep(path);
    std::size_t n = spec.seeds.size();
    for (const auto& a : spec.grid) n *= a.values.size();
    expect(sweep::cell_count(spec) == n && n > 0, "cell count is not the grid's product");
    expect(n <= sweep::kMaxCells, "more cells than the limit");
    for (std::size_t i : {std::size_t{0}, n / 2, n - 1}) {
      const auto c = sweep::cell_at(spec, i);
      expect(c.values.size() == spec.grid.size(), "a cell without a value per axis");
      for (std::size_t a = 0; a < spec.grid.size(); ++a)
        expect(std::find(spec.grid[a].values.begin(), spec.grid[a].values.end(), c.values[a]) !=
                   spec.grid[a].values.end(),
               "a cell value not on its axis");
      expect(sweep::cell_sets(spec, c).size() == spec.grid.size(), "a cell's overrides do not match the grid");
    }
    expect(sweep::to_json(sweep::sweep_from_json(sweep::to_json(spec), "sweep.json")) == sweep::to_json(spec),
           "the manifest does not read back as the same sweep");
  });
}

// A cluster file with the catalog it names (resolved in the sandbox, as a scenario would),
// then the topology built from it.
int fuzz_cluster(const std::uint8_t* data, std::size_t size) {
  std::string path = write_input("tests/fixtures/clusters/fuzz-input.yaml", data, size);
  return expected_errors_ok([&] {
    cluster::GpuCatalog catalog = config::load_catalog(config::catalog_path_of(path));
    config::ClusterFile file = config::load_cluster(path, catalog);
    cluster::Topology topo(file.spec, catalog);
  });
}

int fuzz_gpu_catalog(const std::uint8_t* data, std::size_t size) {
  std::string path = write_input("in/gpus.yaml", data, size);
  return expected_errors_ok([&] {
    cluster::GpuCatalog catalog = config::load_catalog(path);
    for (const auto& m : catalog.models()) {
      expect(std::isfinite(m.speed) && m.speed > 0, "GPU model " + m.name + " has speed " + std::to_string(m.speed));
      expect(catalog.find(m.name).has_value(), "GPU model " + m.name + " is not found by name");
    }
  });
}

// A models catalog; every model's throughput on every shipped GPU must be a positive number.
int fuzz_model_catalog(const std::uint8_t* data, std::size_t size) {
  return expected_errors_ok([&] {
    perf::ModelCatalog models = perf::load_model_catalog_text(text_of(data, size), "fuzz-models.yaml");
    static const perf::CalibrationProfile profile = perf::datasheet_profile();
    std::size_t n = std::min<std::size_t>(models.models().size(), 16);
    for (std::size_t i = 0; i < n; ++i) {
      const auto& m = models.models()[i];
      double bytes = m.gradient_bytes();
      expect(std::isfinite(bytes) && bytes >= 0, "model " + m.name + " gradient bytes " + std::to_string(bytes));
      expect(m.batch > 0, "model " + m.name + " batch " + std::to_string(m.batch));
      for (const auto& gpu : shipped_catalog().models()) {
        double t = perf::gpu_throughput(m, gpu, shipped_catalog(), profile);
        expect(std::isfinite(t) && t > 0, "model " + m.name + " on " + gpu.name + ": " + std::to_string(t) + " samples/s");
      }
      // Goodput: an efficiency in (0, 1] and a finite, positive goodput at every size and progress.
      for (int gpus : {1, 8, 64})
        for (double progress : {0.0, 0.5, 1.0}) {
          const perf::StepCost step{gpus, perf::gpu_throughput(m, shipped_catalog().model(0), shipped_catalog(), profile),
                                    1000.0, 0.5};
          const auto p = perf::best_goodput(step, m.stat_eff, progress, m.batch);
          expect(p.efficiency > 0 && p.efficiency <= 1, "model " + m.name + " efficiency " + std::to_string(p.efficiency));
          expect(std::isfinite(p.goodput) && p.goodput > 0, "model " + m.name + " goodput " + std::to_string(p.goodput));
        }
    }
  });
}

// A calibration profile: predictions are finite and not negative, and writing it out and
// reading it back gives the same text (write_profile's contract).
int fuzz_calibration_profile(const std::uint8_t* data, std::size_t size) {
  return expected_errors_ok([&] {
    perf::CalibrationProfile p = perf::load_profile_text(text_of(data, size), "fuzz-profile.yaml");
    for (const auto& [tier, params] : p.tiers) {
      for (int ranks : {2, 8, 1024})
        for (double bytes : {8.0, 1048576.0, 17179869184.0}) {
          double us = p.predict_allreduce_us(tier, ranks, bytes);
          expect(std::isfinite(us) && us >= 0, "allreduce prediction " + std::to_string(us) + " us for tier " +
                                                   std::string(perf::link_tier_name(tier)));
        }
    }
    std::ostringstream first, second;
    perf::write_profile(p, first);
    perf::write_profile(perf::load_profile_text(first.str(), "fuzz-profile-written.yaml"), second);
    expect(first.str() == second.str(), "profile does not survive a write/read round trip:\n" + first.str() +
                                            "---\n" + second.str());
  });
}

}  // namespace schedlab::fuzz
