// The scenario's checkpoint:, preemption: and failures: sections: defaults, values, and one
// located error per kind of bad input.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "config/scenario.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::config;

namespace {

std::string root() { return SCHEDLAB_SOURCE_DIR; }

// A scenario on the tiny test cluster (rack v: h0, h1; rack a: h2) with `extra` appended;
// the sections under test start at line 4.
std::string scenario_file(const std::string& name, const std::string& extra) {
  const auto dir = std::filesystem::temp_directory_path() / "schedlab_lifecycle_config";
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path) << "cluster: " << root() << "/tests/fixtures/clusters/tiny.yaml\n"
                      << "workload:\n"
                      << "  trace: " << root() << "/tests/fixtures/native/small.csv\n"
                      << extra;
  return path;
}

std::string write(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "schedlab_lifecycle_config";
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::string& path, const std::vector<std::string>& sets = {}) {
  try {
    load_scenario(path, sets);
  } catch (const util::InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("Config.Lifecycle.defaults_without_the_sections") {
  const auto sc = load_scenario(scenario_file("none.yaml", ""));
  const auto& l = sc.lifecycle;
  CHECK_FALSE(l.config.checkpoint_set);
  CHECK(l.config.grace == 0);
  CHECK(l.config.max_retries == 3);
  CHECK_FALSE(l.failures.any());
}

TEST_CASE("Config.Lifecycle.reads_every_key") {
  write("fail.csv", "time_s,host,down_s\n60,h2,600\n");
  const auto sc = load_scenario(scenario_file("all.yaml",
                                              "checkpoint: {interval_s: 1800, save_s: 45, restore_s: 25.5}\n"
                                              "preemption: {grace_s: 120}\n"
                                              "failures:\n"
                                              "  host_mtbf_h: 1000\n"
                                              "  shape: 0.8\n"
                                              "  repair_h: 2.5\n"
                                              "  gpu_failures_per_gpu_h: 1.1e-5\n"
                                              "  max_retries: 5\n"
                                              "  trace: fail.csv\n"));
  const auto& l = sc.lifecycle;
  CHECK(l.config.checkpoint_set);
  CHECK(l.config.checkpoint.interval == 1800 * engine::kMicrosPerSecond);
  CHECK(l.config.checkpoint.save == 45 * engine::kMicrosPerSecond);
  CHECK(l.config.checkpoint.restore == engine::from_seconds(25.5));
  CHECK(l.config.grace == 120 * engine::kMicrosPerSecond);
  CHECK(l.config.max_retries == 5);
  CHECK(l.failures.rates.host_mtbf_h == 1000);
  CHECK(l.failures.rates.shape == 0.8);
  CHECK(l.failures.rates.repair == engine::from_seconds(2.5 * 3600));
  CHECK(l.failures.rates.gpu_failures_per_gpu_h == 1.1e-5);
  CHECK(l.failures.trace.ends_with("schedlab_lifecycle_config/fail.csv"));  // beside the scenario
  CHECK(l.failures.any());
}

TEST_CASE("Config.Lifecycle.set_overrides_are_checked_like_the_file") {
  const auto path = scenario_file("set.yaml", "");
  const auto sc = load_scenario(path, {"failures.max_retries=0", "preemption.grace_s=30"});
  CHECK(sc.lifecycle.config.max_retries == 0);
  CHECK(sc.lifecycle.config.grace == 30 * engine::kMicrosPerSecond);
  CHECK(error_of(path, {"failures.max_retries=-1"}).find("failures.max_retries: must be at least 0") !=
        std::string::npos);
}

TEST_CASE("Config.Lifecycle.bad_values_are_located_errors") {
  write("bad_host.csv", "time_s,host,down_s\n60,h2,600\n61,v/5,10\n");
  struct Case {
    const char* name;
    const char* yaml;
    const char* located;  // after "<path>:"
    const char* has;
  };
  const Case cases[] = {
      {"negative_interval", "checkpoint:\n  interval_s: -60\n", "5: checkpoint.interval_s: -60 s is out of range", ""},
      {"negative_restore", "checkpoint: {restore_s: -1}\n", "4: checkpoint.restore_s: -1 s is out of range", ""},
      {"checkpoint_typo", "checkpoint: {intervall_s: 60}\n", "4: checkpoint.intervall_s: unknown key",
       "did you mean 'interval_s'?"},
      {"negative_grace", "preemption: {grace_s: -5}\n", "4: preemption.grace_s: -5 s is out of range", ""},
      {"grace_typo", "preemption: {grace: 5}\n", "4: preemption.grace: unknown key", "did you mean 'grace_s'?"},
      {"zero_mtbf", "failures:\n  host_mtbf_h: 0\n  repair_h: 1\n", "5: failures.host_mtbf_h: 0 is out of range (0",
       ""},
      {"negative_mtbf", "failures: {host_mtbf_h: -3, repair_h: 1}\n", "4: failures.host_mtbf_h: -3 is out of range",
       ""},
      {"zero_shape", "failures: {host_mtbf_h: 10, shape: 0, repair_h: 1}\n", "4: failures.shape: 0 is out of range (0",
       ""},
      {"negative_gpu_rate", "failures:\n  gpu_failures_per_gpu_h: -1e-5\n  repair_h: 1\n",
       "5: failures.gpu_failures_per_gpu_h: -1e-05 is out of range [0", ""},
      {"negative_repair", "failures: {host_mtbf_h: 10, repair_h: -1}\n", "4: failures.repair_h: -1 is out of range",
       ""},
      {"missing_repair", "failures: {host_mtbf_h: 10}\n", "4: failures.repair_h: required with host_mtbf_h", ""},
      {"shape_alone", "failures: {shape: 2}\n", "4: failures.shape: applies to host failures", ""},
      {"not_a_number", "failures: {host_mtbf_h: often, repair_h: 1}\n", "4: failures.host_mtbf_h: expected a number",
       ""},
      {"failures_typo", "failures:\n  host_mtbf: 10\n", "5: failures.host_mtbf: unknown key 'host_mtbf'",
       "did you mean 'host_mtbf_h'?"},
      {"missing_trace", "failures: {trace: nowhere.csv}\n", "4: failures.trace: no such file", ""},
  };
  for (const auto& c : cases) {
    const std::string name = c.name;
    CAPTURE(name);
    const auto path = scenario_file(std::string(c.name) + ".yaml", c.yaml);
    const auto msg = error_of(path);
    CAPTURE(msg);
    CHECK(msg.starts_with(path + ":" + c.located));
    CHECK(msg.find(c.has) != std::string::npos);
  }
  // The failure trace is read while the scenario loads (so `validate` reports its rows too):
  // its errors name the trace file and line.
  const auto path = scenario_file("bad_host.yaml", "failures: {trace: bad_host.csv}\n");
  const auto msg = error_of(path);
  const auto trace = (std::filesystem::temp_directory_path() / "schedlab_lifecycle_config" / "bad_host.csv").string();
  CHECK(msg.starts_with(trace + ":3: host: unknown host 'v/5'"));
  CHECK(msg.find("racks v (2 hosts), a (1 host)") != std::string::npos);
}
