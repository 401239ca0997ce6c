// Bad configuration files and --set values: every number in range or a located error, and
// whatever yaml-cpp or the filesystem would throw reported as `file:line: field: what`.
// One case per defect class (R09-R13, R20-R22 of the robustness reproducers).
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../support/input_errors.h"
#include "config/cluster_config.h"
#include "config/scenario.h"
#include "util/yaml_util.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::testing;
using namespace schedlab::config;

TEST_CASE("Config.Robustness.bad_files_are_located") {
  struct Case {
    const char* scenario;  // relative to tests/fixtures/
    std::vector<std::string> sets;
    const char* file;  // where the error is; relative to tests/fixtures/
    long line;
    const char* field;
    const char* says;
  };
  const Case cases[] = {
      // R09: 2^32 hosts wrapped to 0.
      {"scenarios/minimal.yaml",
       {"cluster=../clusters/count_2p32.yaml"},
       "clusters/count_2p32.yaml",
       7,
       "racks[0].hosts[0].count",
       "4294967296 is out of range [1, 4294967295]"},
      // R10: no size limit.
      {"scenarios/minimal.yaml",
       {"cluster=../clusters/too_big.yaml"},
       "clusters/too_big.yaml",
       7,
       "racks[0].count",
       "at least 10240000000 GPUs, more than the limit of 10000000"},
      // R12: a missing required child was "internal error: invalid node".
      {"scenarios/minimal.yaml",
       {"cluster=../clusters/rack_without_hosts.yaml"},
       "clusters/rack_without_hosts.yaml",
       5,
       "racks[0].hosts",
       "required key is missing"},
      // R20: a folder where a file is expected.
      {"scenarios/minimal.yaml",
       {"cluster=../clusters/catalog_is_folder.yaml"},
       "clusters/catalog_is_folder.yaml",
       3,
       "catalog",
       "is a folder, expected a file"},
      // R11: a non-scalar key was "internal error: bad conversion".
      {"scenarios/nonscalar_key.yaml", {}, "scenarios/nonscalar_key.yaml", 3, "", "a key must be a plain name"},
      // R21: std::filesystem::exists threw on a name too long.
      {"scenarios/long_path.yaml", {}, "scenarios/long_path.yaml", 3, "cluster", "File name too long"},
      // R22: validate must see what run sees, at the scenario's line.
      {"scenarios/generator_unknown_model.yaml",
       {},
       "scenarios/generator_unknown_model.yaml",
       10,
       "workload.generate.models",
       "unknown GPU model 'H10O'; did you mean 'H100'?"},
  };
  for (const auto& c : cases) {
    CAPTURE(std::string(c.scenario));
    CAPTURE(std::string(c.file));
    auto e = input_error_of([&] { load_scenario(fixture(c.scenario), c.sets); });
    CHECK(e.file() == fixture(c.file));
    CHECK(e.line() == c.line);
    CHECK(e.field() == c.field);
    CHECK_MESSAGE(says(e, c.says), std::string(e.what()));
  }
}

TEST_CASE("Config.Robustness.set_numbers_in_range_or_located") {
  // --set values have no line of their own: file and field, line 0.
  struct Case {
    const char* set;
    const char* field;
    const char* says;
  };
  const Case cases[] = {
      {"seed=-1", "seed", "expected a whole number from 0 to 18446744073709551615"},
      // R13: 1e-7 s rounded to a 0 us interval (division by zero); 1e300 s overflowed.
      {"metrics.timeline_interval_s=0.0000001", "metrics.timeline_interval_s", "is out of range [1e-06, "},
      {"metrics.timeline_interval_s=1e300", "metrics.timeline_interval_s", "1e+300 is out of range"},
      {"workload.generate.jobs=4294967296", "workload.generate.jobs", "4294967296 is out of range [1, 4294967295]"},
      {"workload.generate.gpu_sizes=[4294967296]", "workload.generate.gpu_sizes", "is out of range [1, 4294967295]"},
      {"workload.generate.gpu_sizes=[1.5]", "workload.generate.gpu_sizes", "1.5 is not a whole number"},
      {"workload.generate.duration_max_s=1e300", "workload.generate.duration_max_s", "is out of range"},
      {"workload.generate.gpu_size_weights=[-1, 2]", "workload.generate.gpu_size_weights", "must not be negative"},
      // R14's cause at the source: arrivals spread past the 100 years a time may span.
      {"workload.generate.arrival_rate_per_hour=1e-300", "workload.generate.arrival_rate_per_hour",
       "would arrive over 1.14e+297 years on average"},
      {"workload.generate.arrival_rate_per_hour=0.00005", "workload.generate.arrival_rate_per_hour",
       "too close to the 100-year limit"},
      // Scheduler args are checked by the part itself, while loading (so validate sees them).
      {"scheduler.args.easy.max_scan=0", "scheduler.args.easy.max_scan", "'0' is not a positive integer"},
      {"workload.max_jobs=4294967296", "workload.max_jobs", "out of range [1, 4294967295]"},
  };
  for (const auto& c : cases) {
    CAPTURE(std::string(c.set));
    auto e = input_error_of([&] { load_scenario(fixture("scenarios/bad_numbers.yaml"), {c.set}); });
    CHECK(e.file() == fixture("scenarios/bad_numbers.yaml"));
    CHECK(e.field() == c.field);
    CHECK_MESSAGE(says(e, c.says), std::string(e.what()));
  }
  // The file itself loads, and 1 us is the finest interval accepted.
  CHECK_NOTHROW(load_scenario(fixture("scenarios/bad_numbers.yaml"), {"metrics.timeline_interval_s=0.000001"}));
}

TEST_CASE("Config.Robustness.yaml_structure_errors_are_located") {
  SUBCASE("nesting too deep says so") {
    std::string deep = "a: " + std::string(5000, '[') + std::string(5000, ']') + "\n";
    auto e = input_error_of([&] { util::parse_yaml(deep, "deep.yaml"); });
    CHECK(e.file() == "deep.yaml");
    CHECK(e.line() == 1);
    CHECK_MESSAGE(says(e, "nested too deeply"), std::string(e.what()));
  }
  SUBCASE("a folder given as the scenario") {
    auto e = input_error_of([&] { load_scenario(fixture("scenarios")); });
    CHECK(e.file() == fixture("scenarios"));
    CHECK_MESSAGE(says(e, "is a folder, expected a file"), std::string(e.what()));
  }
  SUBCASE("a device is not a configuration file") {
    auto e = input_error_of([&] { util::load_yaml_file("/dev/null"); });
    CHECK_MESSAGE(says(e, "is not a regular file"), std::string(e.what()));
  }
  SUBCASE("a nested non-scalar key names its map") {
    auto e =
        input_error_of([&] { load_scenario(fixture("scenarios/bad_numbers.yaml"), {"scheduler.args={[a]: {x: 1}}"}); });
    CHECK(e.field() == "scheduler.args");
    CHECK_MESSAGE(says(e, "a key must be a plain name"), std::string(e.what()));
  }
}

TEST_CASE("Config.Robustness.catalog_numbers_in_range") {
  // Each gpus.yaml number within its sense range, located at its line.
  struct Case {
    const char* line;
    const char* field;
    const char* says;
  };
  const Case cases[] = {
      {"{name: X, generation: 4294967297, speed: 1, intra_gbps: 10}", "models[0].generation",
       "out of range [1, 10000]"},
      {"{name: X, generation: 70, speed: 0, intra_gbps: 10}", "models[0].speed", "0 is out of range [1e-06, 1000000]"},
      {"{name: X, generation: 70, speed: 1, intra_gbps: 1e-300}", "models[0].intra_gbps", "is out of range [0.001, "},
  };
  const std::string path =
      (std::filesystem::temp_directory_path() / ("schedlab-catalog-" + std::to_string(::getpid()) + ".yaml")).string();
  for (const auto& c : cases) {
    CAPTURE(std::string(c.line));
    {
      std::ofstream out(path);
      out << "models:\n  - " << c.line << "\n";
    }
    auto e = input_error_of([&] { load_catalog(path); });
    CHECK(e.line() == 2);
    CHECK(e.field() == c.field);
    CHECK_MESSAGE(says(e, c.says), std::string(e.what()));
  }
  std::remove(path.c_str());
}
