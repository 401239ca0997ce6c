// Failure sources for simulated runs: seeded rate models (per-host renewal processes and a
// Poisson process of single-GPU failures) and failure trace files, built from the scenario's
// `failures:` section (docs/lifecycle.md).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/topology.h"
#include "lifecycle/failure_source.h"

namespace schedlab::lifecycle {

// Seeded failure rates. Zero rates mean "no failures of that kind".
struct FailureRates {
  double host_mtbf_h = 0;             // mean time between failures of one host (hours); 0 = none
  double shape = 1;                   // Weibull shape of a host's time between failures; 1 = exponential
  double gpu_failures_per_gpu_h = 0;  // single-GPU failures per GPU-hour over the whole cluster; 0 = none
  engine::Time repair = 0;            // fixed down time after every failure (microseconds)
};

// What the scenario's `failures:` asked for: rates, a trace file, both (merged) or neither.
struct FailureSpec {
  FailureRates rates;
  std::string trace;  // resolved path of a failure trace (CSV time_s,host,down_s[,gpu]); empty = none
  bool any() const { return rates.host_mtbf_h > 0 || rates.gpu_failures_per_gpu_h > 0 || !trace.empty(); }
};

// Host names in failure traces: "h<id>" (the cluster-wide host number, as jobs.csv placements
// print hosts) or "<rack>/<k>" (the k-th host, from 0, of a rack named as the topology names
// racks: "<name>" for a single rack, "<name>-<copy>" for each copy of a repeated rack).
std::string host_name(const cluster::Topology& topo, cluster::HostId h);
std::optional<cluster::HostId> find_host(const cluster::Topology& topo, std::string_view name);

// The seeded rate model (never null); draws come from the streams "failures.hosts" and
// "failures.gpus" of engine::Rng(seed), so the same seed gives the same failures whatever the
// policy does.
std::unique_ptr<FailureSource> make_rate_failures(const FailureRates& rates, const cluster::Topology& topo,
                                                  std::uint64_t seed);
// A failure trace, streamed row by row; bad rows are InputErrors naming the file and line.
std::unique_ptr<FailureSource> open_failure_trace(const std::string& path, const cluster::Topology& topo);
// Reads a failure trace to its end, so that `validate` reports its errors; returns the rows.
std::uint64_t check_failure_trace(const std::string& path, const cluster::Topology& topo);

// The source for a scenario's failures: null when it asks for none.
std::unique_ptr<FailureSource> make_failure_source(const FailureSpec& spec, const cluster::Topology& topo,
                                                   std::uint64_t seed);

}  // namespace schedlab::lifecycle
