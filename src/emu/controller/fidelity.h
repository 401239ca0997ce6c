// How far a simulation was from its emulation: the same scenario and seed, emulated and then
// simulated, compared job by job (start, end, JCT) and as a whole (mean JCT, makespan,
// utilization), with the emulation's own clock lag and scheduling latency beside them. A
// positive error means the emulation was slower than the simulation predicted.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "metrics/collector.h"
#include "metrics/summary.h"

namespace schedlab::emu {

struct JobFidelity {
  workload::JobId id = 0;
  double emu_start_s = -1, emu_end_s = -1, emu_jct_s = -1;
  double sim_start_s = -1, sim_end_s = -1, sim_jct_s = -1;
  double jct_error = 0;  // (emulated - simulated) / simulated, when both finished
  bool compared = false;  // finished in both
};

struct Fidelity {
  std::vector<JobFidelity> jobs;
  std::uint64_t compared = 0;
  double mean_jct_error = 0;  // (mean emulated JCT - mean simulated JCT) / mean simulated, same jobs
  double job_error_p50 = 0, job_error_p95 = 0;  // of |per-job JCT error|
  double makespan_error = 0;
  double utilization_error = 0;  // emulated - simulated utilization (a difference of fractions)
  metrics::Summary emulated, simulated;
  // The emulation's own figures (emulation.json), wall milliseconds.
  double clock_lag_p50_ms = 0, clock_lag_p99_ms = 0;
  double start_latency_p50_ms = 0, start_latency_p99_ms = 0;
  // Mean JCT over the compared jobs only (the summaries' means include jobs without a twin).
  double emu_jct_mean_compared_s = 0, sim_jct_mean_compared_s = 0;
  // Jobs submitted over the API: no simulated twin, so reported apart.
  std::uint64_t api_jobs = 0, api_finished = 0;
  double api_jct_mean_s = 0;
  // Whether the comparison can be trusted (judge_fidelity), and why not.
  bool trustworthy = true;
  std::vector<std::string> untrustworthy_because;
};

// What an emulation knows of its own health, beside its results.
struct EmulationHealth {
  double speedup = 1;
  double clock_lag_p99_ms = 0;       // wall
  std::uint64_t reregistrations = 0;  // agents that registered again (hosts lost and back)
  std::uint64_t agent_restarts = 0;   // local agents started again after they died
  std::uint64_t planned_agent_kills = 0, planned_worker_kills = 0;
};

// Above this share of the compared jobs' mean simulated JCT, the p99 clock lag (in trace time)
// makes event times, and so the comparison, unreliable.
inline constexpr double kMaxClockLagShareOfJct = 0.01;

// Marks the comparison untrustworthy, with one reason each: a p99 clock lag above
// kMaxClockLagShareOfJct of the mean JCT; agents that registered again or were restarted more
// often than the failure plan killed agents; job failures in an emulation without a failure plan.
void judge_fidelity(Fidelity& f, const EmulationHealth& h);

// Per-job records of one run, as the collector holds them at its end.
struct RunRecords {
  std::vector<metrics::JobRecord> jobs;
  metrics::Summary summary;
};
RunRecords records_of(const metrics::Collector& collector, metrics::Summary summary);

Fidelity compare_runs(const RunRecords& emulated, const RunRecords& simulated);

void write_fidelity_json(std::ostream& out, const Fidelity& f);
void write_fidelity_csv(std::ostream& out, const Fidelity& f);
// The side-by-side table printed after an emulation.
std::string format_fidelity_table(const Fidelity& f);

}  // namespace schedlab::emu
