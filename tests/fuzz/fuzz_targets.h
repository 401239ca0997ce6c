// Fuzz entry points, one per parser: each takes the bytes of one input file, parses them as a
// user's file would be parsed, runs a little of what depends on the result, and returns 0.
// Bad input answered with InputError or EnvironmentError is an expected outcome; any other
// exception, a broken invariant (InvariantError), a crash or a sanitizer report is a finding.
// The same functions run under libFuzzer (fuzz_main.cpp) and in the unit tests, which replay
// tests/fuzz/regressions/<target>/* (test_fuzz_regressions.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/topology.h"

namespace schedlab::metrics {
class Collector;
}

namespace schedlab::fuzz {

using Entry = int (*)(const std::uint8_t* data, std::size_t size);

struct Target {
  std::string_view name;  // as in tests/fuzz/targets.txt and regressions/<name>/
  Entry entry;
};

// Every target, in the order of tests/fuzz/targets.txt.
const std::vector<Target>& targets();
// The target named `name`, or nullptr.
const Target* find_target(std::string_view name);

// Numbers a successful parse produced that contradict each other (a finding, never bad input).
class InvariantError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

int fuzz_scenario(const std::uint8_t* data, std::size_t size);
int fuzz_sweep(const std::uint8_t* data, std::size_t size);
int fuzz_cluster(const std::uint8_t* data, std::size_t size);
int fuzz_gpu_catalog(const std::uint8_t* data, std::size_t size);
int fuzz_model_catalog(const std::uint8_t* data, std::size_t size);
int fuzz_calibration_profile(const std::uint8_t* data, std::size_t size);
int fuzz_nccl_tests_log(const std::uint8_t* data, std::size_t size);
int fuzz_trace_native(const std::uint8_t* data, std::size_t size);
int fuzz_trace_rfold(const std::uint8_t* data, std::size_t size);
int fuzz_trace_philly(const std::uint8_t* data, std::size_t size);
int fuzz_trace_pai2020(const std::uint8_t* data, std::size_t size);
int fuzz_trace_openb(const std::uint8_t* data, std::size_t size);
int fuzz_trace_helios(const std::uint8_t* data, std::size_t size);
int fuzz_trace_acme(const std::uint8_t* data, std::size_t size);
int fuzz_trace_swf(const std::uint8_t* data, std::size_t size);
int fuzz_trace_sacct(const std::uint8_t* data, std::size_t size);
int fuzz_packing_openb(const std::uint8_t* data, std::size_t size);
int fuzz_trace_auto(const std::uint8_t* data, std::size_t size);
int fuzz_failure_trace(const std::uint8_t* data, std::size_t size);
int fuzz_protocol(const std::uint8_t* data, std::size_t size);
int fuzz_api_body(const std::uint8_t* data, std::size_t size);
int fuzz_journal(const std::uint8_t* data, std::size_t size);
int fuzz_external_policy(const std::uint8_t* data, std::size_t size);
int fuzz_gzip(const std::uint8_t* data, std::size_t size);

// --- helpers shared by the targets (fuzz_sandbox.cpp) ---------------------------------

// A private folder that mirrors the repository's layout, so that relative paths in the seed
// files resolve: configs/ and traces/ and the fixture folders are symbolic links into the
// source tree (read only); the folders fuzz inputs are written to are real, so nothing is
// ever written into the source tree. Created on first use, removed at exit.
const std::string& sandbox_root();
// Writes the input to `relative` under the sandbox (replacing it) and returns its path.
std::string write_input(const std::string& relative, const std::uint8_t* data, std::size_t size);
// The repository root (SCHEDLAB_SOURCE_DIR).
std::string source_dir();

// Throws InvariantError with `what` unless `ok`.
void expect(bool ok, const std::string& what);

// The unit-test cluster (tests/fixtures/clusters/tiny.yaml: 16 GPUs, V100 and A100), read once
// (fuzz_traces.cpp).
struct SmallCluster {
  cluster::GpuCatalog catalog;
  cluster::ClusterSpec spec;
};
const SmallCluster& small_cluster();
// Checks that a finished run's figures agree with each other: every job's times in order,
// the GPU-seconds held by runs equal to the timeline's integral, every summary figure finite
// and not negative (fuzz_traces.cpp).
void check_run(const metrics::Collector& collector);

}  // namespace schedlab::fuzz
