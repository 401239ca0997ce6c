// Prometheus figures of a live emulation and their text exposition (format 0.0.4).
#include "emu/controller/live_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sched/job_life.h"

namespace schedlab::emu {

namespace {

// A label value as the format wants it: backslash, double quote and line feed escaped.
std::string prom_label_value(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

// A sample value: integers as integers, others in the shortest form that reads back exactly.
std::string prom_number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  return fmt::format("{}", v);
}

void prom_header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

void prom_histogram(std::string& out, std::string_view name, std::string_view help, const Histogram& h) {
  prom_header(out, name, "histogram", help);
  for (std::size_t i = 0; i < h.bounds.size(); ++i)
    out += fmt::format("{}_bucket{{le=\"{}\"}} {}\n", name, prom_number(h.bounds[i]), h.cumulative[i]);
  out += fmt::format("{}_bucket{{le=\"+Inf\"}} {}\n", name, h.count);
  out += fmt::format("{}_sum {}\n{}_count {}\n", name, prom_number(h.sum), name, h.count);
}

}  // namespace

Histogram histogram_of(const std::vector<double>& samples, double scale, std::vector<double> bounds) {
  Histogram h;
  h.bounds = std::move(bounds);
  std::vector<std::uint64_t> in_bucket(h.bounds.size(), 0);
  for (double s : samples) {
    const double v = std::max(0.0, s * scale);
    h.sum += v;
    ++h.count;
    const auto it = std::lower_bound(h.bounds.begin(), h.bounds.end(), v);  // first bound >= v
    if (it != h.bounds.end()) ++in_bucket[static_cast<std::size_t>(it - h.bounds.begin())];
  }
  std::uint64_t running = 0;
  for (auto n : in_bucket) h.cumulative.push_back(running += n);
  return h;
}

std::vector<double> clock_lag_buckets() {
  return {0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10};
}

std::vector<double> scheduling_latency_buckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
}

LiveFigures live_figures(const sim::RunView& view, const cluster::Topology& topo, std::uint64_t agents_registered,
                         const std::vector<double>& lag_us, const std::vector<double>& latency_ms) {
  LiveFigures f;
  f.now_s = engine::to_seconds(view.now);
  f.jobs_by_state = view.jobs_by_state;
  f.queue_length = view.pending_jobs;
  for (std::size_t h = 0; h < view.hosts.size(); ++h) {
    const auto& x = view.hosts[h];
    const auto& info = topo.host(static_cast<cluster::HostId>(h));
    LiveFigures::HostGpus g;
    g.host = fmt::format("h{}", h);
    g.model = info.gpus ? topo.catalog().model(info.model).name : "";
    g.idle = x.free;
    g.down = x.down;
    // A GPU shared by fractional tasks is not wholly free: it counts as busy.
    g.busy = x.gpus - std::min<std::uint32_t>(x.gpus, x.free + x.down);
    f.hosts.push_back(std::move(g));
  }
  f.preemptions = view.preemptions;
  f.failures = view.failures;
  f.agents_registered = agents_registered;
  f.hosts_total = view.hosts.size();
  f.clock_lag = histogram_of(lag_us, 1e-6, clock_lag_buckets());
  f.scheduling_latency = histogram_of(latency_ms, 1e-3, scheduling_latency_buckets());
  return f;
}

std::string prometheus_text(const LiveFigures& f) {
  std::string out;
  prom_header(out, "schedlab_trace_time_seconds", "gauge", "The emulated run's trace time now.");
  out += fmt::format("schedlab_trace_time_seconds {}\n", prom_number(f.now_s));
  prom_header(out, "schedlab_jobs", "gauge",
              "Jobs that have arrived, by state: active ones as they are now, ended ones as they ended.");
  for (std::size_t s = 0; s < f.jobs_by_state.size(); ++s)
    out += fmt::format("schedlab_jobs{{state=\"{}\"}} {}\n", sched::state_name(static_cast<sched::JobState>(s)),
                       f.jobs_by_state[s]);
  prom_header(out, "schedlab_queue_length", "gauge", "Jobs waiting in the scheduler's queue.");
  out += fmt::format("schedlab_queue_length {}\n", f.queue_length);
  prom_header(out, "schedlab_gpus", "gauge",
              "GPUs by host, model and state: busy (held by a task, wholly or in part), idle, down.");
  for (const auto& h : f.hosts) {
    const auto host = prom_label_value(h.host), model = prom_label_value(h.model);
    out += fmt::format("schedlab_gpus{{host=\"{}\",model=\"{}\",state=\"busy\"}} {}\n", host, model, h.busy);
    out += fmt::format("schedlab_gpus{{host=\"{}\",model=\"{}\",state=\"idle\"}} {}\n", host, model, h.idle);
    out += fmt::format("schedlab_gpus{{host=\"{}\",model=\"{}\",state=\"down\"}} {}\n", host, model, h.down);
  }
  prom_header(out, "schedlab_preemptions_total", "counter", "Jobs stopped by the scheduler's decisions.");
  out += fmt::format("schedlab_preemptions_total {}\n", f.preemptions);
  prom_header(out, "schedlab_failures_total", "counter",
              "Failures that struck a run: hosts lost, GPUs down, tasks that died.");
  out += fmt::format("schedlab_failures_total {}\n", f.failures);
  prom_header(out, "schedlab_agents_registered", "gauge", "Hosts whose agent is registered and not lost.");
  out += fmt::format("schedlab_agents_registered {}\n", f.agents_registered);
  prom_header(out, "schedlab_hosts", "gauge", "Hosts of the emulated cluster.");
  out += fmt::format("schedlab_hosts {}\n", f.hosts_total);
  prom_histogram(out, "schedlab_clock_lag_seconds",
                 "How late the loop handled each instant against the scaled wall clock (wall seconds).", f.clock_lag);
  prom_histogram(out, "schedlab_scheduling_latency_seconds",
                 "From a decision to start a run to all its tasks reported running (wall seconds).",
                 f.scheduling_latency);
  return out;
}

}  // namespace schedlab::emu
