// The controller's figures for Prometheus (GET /metrics, docs/emulation.md): a run's view
// (sim::RunView, the same the JSON API answers with), the agents registered, and the samples
// the emulation already keeps for its own report (the clock's lag per instant, each start's
// scheduling latency), turned into values and written in the text exposition format 0.0.4.
// Plain functions over plain data, so that the text is tested without a server.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cluster/topology.h"
#include "sim/run_view.h"

namespace schedlab::emu {

// A Prometheus histogram: `cumulative[i]` observations at most `bounds[i]` (le), then every
// observation (+Inf) in `count`.
struct Histogram {
  std::vector<double> bounds;  // ascending, finite
  std::vector<std::uint64_t> cumulative;
  double sum = 0;
  std::uint64_t count = 0;
};

// Observations `samples` times `scale` (to seconds), each below 0 counted as 0.
Histogram histogram_of(const std::vector<double>& samples, double scale, std::vector<double> bounds);

// The buckets, in seconds: a clock on time lags by well under a millisecond, a loaded machine
// by tens; a start (a process per task, over an agent's poll) takes tens to hundreds of them.
std::vector<double> clock_lag_buckets();
std::vector<double> scheduling_latency_buckets();

struct LiveFigures {
  struct HostGpus {
    std::string host, model;  // "h3", "A100" ("" for a host without GPUs)
    std::uint32_t busy = 0, idle = 0, down = 0;
  };
  double now_s = 0;  // trace time
  std::array<std::uint64_t, sim::kJobStates> jobs_by_state{};
  std::uint64_t queue_length = 0;
  std::vector<HostGpus> hosts;
  std::uint64_t preemptions = 0, failures = 0;
  std::uint64_t agents_registered = 0, hosts_total = 0;
  Histogram clock_lag, scheduling_latency;  // seconds of wall time
};

// The figures of `view` (taken with every job, so that its counts are whole); `lag_us` is the
// wall clock's lag per instant (WallClock::lag_us), `latency_ms` the executor's start latencies.
LiveFigures live_figures(const sim::RunView& view, const cluster::Topology& topo, std::uint64_t agents_registered,
                         const std::vector<double>& lag_us, const std::vector<double>& latency_ms);

// The exposition text: every metric named schedlab_*, its HELP and TYPE before its samples.
std::string prometheus_text(const LiveFigures& figures);

// The Content-Type of that text.
inline constexpr const char* kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace schedlab::emu
