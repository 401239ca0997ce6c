// Emulated against simulated, job by job.
#include "emu/controller/fidelity.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "sim/run_view.h"
#include "util/csv.h"

namespace schedlab::emu {

namespace {
double secs(engine::Time t) { return t < 0 ? -1.0 : engine::to_seconds(t); }
double rel(double a, double b) { return b != 0 ? (a - b) / b : 0.0; }
}  // namespace

RunRecords records_of(const metrics::Collector& collector, metrics::Summary summary) {
  RunRecords r;
  r.jobs.reserve(collector.jobs().size());
  for (std::size_t i = 0; i < collector.jobs().size(); ++i) r.jobs.push_back(collector.jobs()[i]);
  r.summary = std::move(summary);
  return r;
}

Fidelity compare_runs(const RunRecords& emu, const RunRecords& sim) {
  Fidelity f;
  f.emulated = emu.summary;
  f.simulated = sim.summary;
  double emu_sum = 0, sim_sum = 0;
  std::vector<double> abs_err;
  // Jobs are matched by their place in the trace (both runs number the trace's jobs in trace
  // order): jobs submitted over the API while the emulation ran shift the ids after them, and
  // have no simulated twin.
  std::size_t next_sim = 0;
  for (const auto& rec : emu.jobs) {
    JobFidelity j;
    j.id = rec.id;
    const metrics::JobRecord* e = &rec;
    const bool from_api = rec.trace_number == sim::kSubmittedFromOutside;
    const metrics::JobRecord* s = !from_api && next_sim < sim.jobs.size() ? &sim.jobs[next_sim++] : nullptr;
    auto fill = [](const metrics::JobRecord* r, double& start, double& end, double& jct) {
      if (!r) return false;
      start = secs(r->start);
      const bool done = r->state == sched::JobState::finished && r->end >= 0;
      end = done ? secs(r->end) : -1;
      jct = done ? engine::to_seconds(r->end - r->submit) : -1;
      return done;
    };
    const bool ed = fill(e, j.emu_start_s, j.emu_end_s, j.emu_jct_s);
    if (from_api) {
      ++f.api_jobs;
      if (ed) {
        ++f.api_finished;
        f.api_jct_mean_s += j.emu_jct_s;
      }
    }
    const bool sd = fill(s, j.sim_start_s, j.sim_end_s, j.sim_jct_s);
    // A service instance has no completion time to compare: it runs until it is not wanted.
    if (ed && sd && rec.kind != workload::JobKind::service) {
      j.compared = true;
      j.jct_error = rel(j.emu_jct_s, j.sim_jct_s);
      emu_sum += j.emu_jct_s;
      sim_sum += j.sim_jct_s;
      abs_err.push_back(std::abs(j.jct_error));
      ++f.compared;
    }
    f.jobs.push_back(j);
  }
  f.mean_jct_error = rel(emu_sum, sim_sum);
  if (f.compared) {
    f.emu_jct_mean_compared_s = emu_sum / static_cast<double>(f.compared);
    f.sim_jct_mean_compared_s = sim_sum / static_cast<double>(f.compared);
  }
  if (f.api_finished) f.api_jct_mean_s /= static_cast<double>(f.api_finished);
  std::sort(abs_err.begin(), abs_err.end());
  f.job_error_p50 = metrics::percentile(abs_err, 50);
  f.job_error_p95 = metrics::percentile(abs_err, 95);
  f.makespan_error = rel(emu.summary.makespan_s, sim.summary.makespan_s);
  f.utilization_error = emu.summary.gpu_utilization - sim.summary.gpu_utilization;
  return f;
}

void judge_fidelity(Fidelity& f, const EmulationHealth& h) {
  auto say = [&](std::string why) {
    f.trustworthy = false;
    f.untrustworthy_because.push_back(std::move(why));
  };
  const double lag_trace_s = h.clock_lag_p99_ms / 1000.0 * h.speedup;
  if (f.compared && lag_trace_s > kMaxClockLagShareOfJct * f.sim_jct_mean_compared_s)
    say(fmt::format("clock lag p99 {:.1f} ms of wall time is {:.1f} s of trace time, more than {:g}% of the mean "
                    "simulated JCT ({:.1f} s): events were handled late; a lower --speedup or a quieter machine helps",
                    h.clock_lag_p99_ms, lag_trace_s, kMaxClockLagShareOfJct * 100, f.sim_jct_mean_compared_s));
  if (h.reregistrations > h.planned_agent_kills)
    say(fmt::format("agents registered again {} time(s) (the failure plan killed {}): hosts were lost and came back, "
                    "which the simulation did not see",
                    h.reregistrations, h.planned_agent_kills));
  if (h.agent_restarts > h.planned_agent_kills)
    say(fmt::format("local agents were restarted {} time(s) (the failure plan killed {})", h.agent_restarts,
                    h.planned_agent_kills));
  // A planned kill may fail several jobs (all of a host's); only failures without any plan are
  // counted against the comparison.
  if (h.planned_agent_kills + h.planned_worker_kills == 0 && f.emulated.failures > 0)
    say(fmt::format("{} job failure(s) that no failure plan asked for: tasks or agents died that the simulation kept "
                    "running",
                    f.emulated.failures));
}

void write_fidelity_json(std::ostream& out, const Fidelity& f) {
  nlohmann::ordered_json j;
  j["trustworthy"] = f.trustworthy;
  j["untrustworthy_because"] = f.untrustworthy_because;
  j["jobs_compared"] = f.compared;
  j["jct_mean_compared_s"] = {{"emulated", f.emu_jct_mean_compared_s}, {"simulated", f.sim_jct_mean_compared_s}};
  j["api_jobs"] = {{"submitted", f.api_jobs}, {"finished", f.api_finished}, {"jct_mean_s", f.api_jct_mean_s}};
  j["mean_jct_error"] = f.mean_jct_error;
  j["job_jct_error_p50"] = f.job_error_p50;
  j["job_jct_error_p95"] = f.job_error_p95;
  j["makespan_error"] = f.makespan_error;
  j["utilization_error"] = f.utilization_error;
  j["emulated"] = {{"jct_mean_s", f.emulated.jct_mean_s},
                   {"makespan_s", f.emulated.makespan_s},
                   {"gpu_utilization", f.emulated.gpu_utilization},
                   {"finished", f.emulated.finished},
                   {"failed", f.emulated.failed}};
  j["simulated"] = {{"jct_mean_s", f.simulated.jct_mean_s},
                    {"makespan_s", f.simulated.makespan_s},
                    {"gpu_utilization", f.simulated.gpu_utilization},
                    {"finished", f.simulated.finished},
                    {"failed", f.simulated.failed}};
  j["scheduling_latency_ms"] = {{"p50", f.start_latency_p50_ms}, {"p99", f.start_latency_p99_ms}};
  j["clock_lag_ms"] = {{"p50", f.clock_lag_p50_ms}, {"p99", f.clock_lag_p99_ms}};
  out << j.dump(2) << "\n";
}

void write_fidelity_csv(std::ostream& out, const Fidelity& f) {
  out << "job,emu_start_s,emu_end_s,emu_jct_s,sim_start_s,sim_end_s,sim_jct_s,jct_error\n";
  for (const auto& j : f.jobs) {
    out << fmt::format("{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},", j.id, j.emu_start_s, j.emu_end_s,
                       j.emu_jct_s, j.sim_start_s, j.sim_end_s, j.sim_jct_s);
    if (j.compared) out << fmt::format("{:.6f}", j.jct_error);
    out << "\n";
  }
}

std::string format_fidelity_table(const Fidelity& f) {
  std::string s = fmt::format("{:<24}{:>14}{:>14}{:>10}\n", "", "emulated", "simulated", "error");
  // A figure with nothing to measure (no job compared, an empty measurement window) is a dash,
  // as in every other table (docs/metrics.md).
  auto cell = [](double v, const char* spec) { return std::isnan(v) ? std::string("-") : fmt::format(fmt::runtime(spec), v); };
  auto row = [&](const char* name, double e, double m, double err) {
    s += fmt::format("{:<24}{:>14}{:>14}{:>10}\n", name, cell(e, "{:.1f}"), cell(m, "{:.1f}"), cell(err * 100, "{:.1f}%"));
  };
  row("mean JCT (s)", f.compared ? f.emu_jct_mean_compared_s : metrics::kNoValue,
      f.compared ? f.sim_jct_mean_compared_s : metrics::kNoValue, f.compared ? f.mean_jct_error : metrics::kNoValue);
  row("makespan (s)", f.emulated.makespan_s, f.simulated.makespan_s, f.makespan_error);
  s += fmt::format("{:<24}{:>14}{:>14}{:>12}\n", "GPU utilization", cell(f.emulated.gpu_utilization * 100, "{:.1f}%"),
                   cell(f.simulated.gpu_utilization * 100, "{:.1f}%"), cell(f.utilization_error * 100, "{:+.1f} pt"));
  s += fmt::format("{:<24}{:>14}{:>14}\n", "finished / failed",
                   fmt::format("{} / {}", f.emulated.finished, f.emulated.failed),
                   fmt::format("{} / {}", f.simulated.finished, f.simulated.failed));
  s += fmt::format("per-job JCT error: p50 {:.1f}%, p95 {:.1f}% ({} jobs finished in both)\n", f.job_error_p50 * 100,
                   f.job_error_p95 * 100, f.compared);
  s += fmt::format("scheduling latency: p50 {:.1f} ms, p99 {:.1f} ms; clock lag: p50 {:.2f} ms, p99 {:.2f} ms\n",
                   f.start_latency_p50_ms, f.start_latency_p99_ms, f.clock_lag_p50_ms, f.clock_lag_p99_ms);
  if (f.api_jobs)
    s += fmt::format("jobs submitted over the API (no simulated twin, not compared): {}, {} finished, mean JCT {:.1f} s\n",
                     f.api_jobs, f.api_finished, f.api_jct_mean_s);
  if (!f.trustworthy) {
    s += "NOT TRUSTWORTHY: this comparison says little about the simulation, because\n";
    for (const auto& why : f.untrustworthy_because) s += "  - " + why + "\n";
  }
  return s;
}

}  // namespace schedlab::emu
