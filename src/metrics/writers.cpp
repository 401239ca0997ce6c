// CSV and JSON writers for run results.
#include "metrics/writers.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "cluster/resources.h"
#include "metrics/summary_figures.h"
#include "util/checked.h"
#include "util/csv.h"
#include "util/fixed_text.h"
#include "util/row_buffer.h"

namespace schedlab::metrics {

std::string gpu_milli_text(std::uint64_t milli) {
  std::string out = std::to_string(milli / 1000);
  if (auto frac = milli % 1000) {
    std::string digits = fmt::format("{:03}", frac);
    out += "." + digits.substr(0, digits.find_last_not_of('0') + 1);
  }
  return out;
}

bool is_count_figure(const std::string& name) {
  if (const auto* f = find_figure(name)) return f->unit == FigureUnit::count;
  // A packing run's figures (run/packing_run.h) are not in the summary's table.
  return name == "pods" || name == "pods_placed" || name == "pods_failed" || name == "gpu_pods_failed";
}

std::string human_figure(const std::string& name, double v) {
  if (!has_value(v)) return "-";
  if (is_count_figure(name)) return fmt::format("{}", static_cast<std::uint64_t>(v));
  const bool seconds = name.size() > 2 && name.compare(name.size() - 2, 2, "_s") == 0;
  if (seconds) return std::abs(v) >= 3600 ? fmt::format("{:.2f} h", v / 3600) : fmt::format("{:.1f} s", v);
  if (name.find("utilization") != std::string::npos || name.find("_ratio") != std::string::npos ||
      name == "goodput" || name == "fragmentation")
    return fmt::format("{:.1f}%", v * 100);
  if (std::abs(v) >= 1e4) return fmt::format("{:.0f}", v);
  if (v != 0 && std::abs(v) < 1e-3) return fmt::format("{:.6f}", v);
  return fmt::format("{:.4g}", v);
}

std::string trace_name(workload::Label trace_id, std::uint64_t trace_number, const workload::StringPool& strings) {
  if (trace_id != workload::kNoLabel) return std::string(strings.str(trace_id));
  return trace_number != kNoTraceNumber ? std::to_string(trace_number) : std::string();
}

namespace {
constexpr std::size_t kPrefetchAhead = 8;  // jobs.csv rows
// Room for one number field and its separator: an integer (20 digits) or seconds.
constexpr std::size_t kNumberRoom = engine::kSecondsTextMax + 1;

char* put_uint(char* p, std::uint64_t v, char sep) {
  p = std::to_chars(p, p + 20, v).ptr;
  *p++ = sep;
  return p;
}

// `v` with `decimals` digits after the point (util/fixed_text.h: the characters fmt's "{:.Nf}"
// gave), then `sep`.
char* put_fixed(char* p, double v, int decimals, char sep) {
  p = util::put_fixed(p, v, decimals);
  *p++ = sep;
  return p;
}

char* put_text(char* p, std::string_view s) {
  if (!s.empty()) std::memcpy(p, s.data(), s.size());
  return p + s.size();
}

std::string model_names(cluster::ModelMask mask, const cluster::GpuCatalog& catalog) {
  std::string out;
  for (cluster::ModelId m = 0; m < catalog.size(); ++m)
    if (mask >> m & 1) {
      if (!out.empty()) out += '|';
      out += catalog.model(m).name;
    }
  return out;
}
}  // namespace

void write_jobs_csv(std::ostream& out, const Collector& c, const workload::StringPool& strings) {
  const bool recorded = c.has_recorded_waits();
  out << kJobsCsvHeader << (recorded ? std::string(",") + kRecordedWaitColumn : std::string()) << '\n';
  const auto& catalog = c.topology().catalog();
  // Each row asks its buffer once for room for its longest text, then its fields are written
  // through one pointer: per-field appends and formatted writes were most of the file's time.
  util::RowBuffer rows(out);
  auto secs = [](char* p, engine::Time t) {
    if (t >= 0) p = engine::put_seconds(p, t);
    *p++ = ',';
    return p;
  };
  // GPU-seconds to the microsecond, formatted from integers (exact, and fast at a million rows).
  auto gpu_seconds = [](char* p, double gpu_us) {
    p = engine::put_seconds(p, util::time_from_double_clamped(std::round(gpu_us)));
    *p++ = ',';
    return p;
  };
  std::unordered_map<cluster::ModelMask, std::string> models;  // a few distinct masks per run, as CSV fields
  const bool pooled = c.has_pools();
  std::vector<std::string> pool_names;  // as CSV fields
  for (const auto& p : c.pools()) util::append_csv_field(pool_names.emplace_back(), p.name);
  // Number fields (ids, counts, times) and separators; the text fields' room is added per row.
  constexpr std::size_t kFixedRoom = 24 * kNumberRoom + 16;
  const auto& jobs = c.jobs();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& r = jobs[i];
    // Placements are kept in the order jobs ended, not by id: ask for a later row's early,
    // or the row waits on a cache miss for it.
    if (i + kPrefetchAhead < jobs.size()) __builtin_prefetch(c.text(jobs[i + kPrefetchAhead].placement).data());
    // The text fields first, for the row's room. Raw text (from users) is quoted as it is
    // written; the rest is plain already.
    const std::string_view trace = r.trace_id != workload::kNoLabel ? strings.str(r.trace_id) : std::string_view();
    const std::string_view user = r.user != workload::kNoLabel ? strings.str(r.user) : std::string_view();
    const std::string_view placement = c.text(r.placement);
    const std::string_view drop_reason = c.text(r.drop_reason);
    std::string_view pool;  // quoted already when the scenario has pools
    if (pooled) {
      if (const auto p = c.job_pool(r.id); p >= 0) pool = pool_names[static_cast<std::size_t>(p)];
    }
    const workload::Label pool_label = pooled ? workload::kNoLabel : c.job_pool_label(r.id);
    const std::string_view raw_pool = pool_label != workload::kNoLabel ? strings.str(pool_label) : std::string_view();
    auto [m, fresh] = models.try_emplace(r.models);
    if (fresh) util::append_csv_field(m->second, model_names(r.models, catalog));
    const std::string_view state = sched::state_name(r.state);
    const std::string_view kind = workload::kind_name(r.kind);
    // Rare forms made as text: a fraction of a GPU, CPUs or memory in fractions.
    std::string odd_gpus, odd_cpus, odd_mem;
    if (r.gpu_milli < 1000) odd_gpus = gpu_milli_text(r.gpu_milli);
    if (r.cpu_milli % cluster::kMilliPerCpu != 0) odd_cpus = cluster::cpu_text(r.cpu_milli);
    if (r.mem_mib % cluster::kMibPerGb != 0) odd_mem = cluster::mem_gb_text(r.mem_mib);
    const std::size_t room = kFixedRoom + util::csv_field_room(trace) + util::csv_field_room(user) +
                             util::csv_field_room(placement) + util::csv_field_room(drop_reason) +
                             util::csv_field_room(raw_pool) + pool.size() + m->second.size() + state.size() +
                             kind.size() + odd_gpus.size() + odd_cpus.size() + odd_mem.size();
    char* p = rows.room(room);

    p = put_uint(p, r.id, ',');
    if (r.trace_id != workload::kNoLabel)
      p = util::put_csv_field(p, trace);
    else if (r.trace_number != kNoTraceNumber)  // a job from outside (the API) has no trace row
      p = std::to_chars(p, p + 20, r.trace_number).ptr;
    *p++ = ',';
    p = util::put_csv_field(p, user);
    *p++ = ',';
    // Final for finished, failed and dropped jobs; for a run cut short, where the job stood.
    const bool finished = r.state == sched::JobState::finished;
    const bool ended = r.end >= 0 && (finished || r.state == sched::JobState::failed);
    p = secs(p, r.submit);
    p = secs(p, r.start);
    p = secs(p, r.end);
    p = secs(p, r.start >= 0 ? r.start - r.submit : -1);
    p = secs(p, ended ? r.end - r.submit - r.held : -1);
    p = secs(p, ended ? r.held : -1);
    p = secs(p, finished && r.end >= 0 ? r.end - r.submit : -1);
    p = put_uint(p, r.tasks, ',');
    p = put_uint(p, r.gpus_per_task, ',');
    p = put_uint(p, r.gpu_milli, ',');
    // In integers ((2^32-1)^2 fits in 64 bits): a double printed with %g turns 2^31 GPUs into 2.14748e+09.
    if (r.gpu_milli < 1000) {
      p = put_text(p, odd_gpus);
      *p++ = ',';
    } else {
      p = put_uint(p, std::uint64_t{r.tasks} * r.gpus_per_task, ',');
    }
    p = put_uint(p, r.hosts, ',');
    p = put_uint(p, r.racks, ',');
    p = put_text(p, m->second);
    *p++ = ',';
    p = util::put_csv_field(p, placement);
    *p++ = ',';
    p = put_text(p, state);
    *p++ = ',';
    p = util::put_csv_field(p, drop_reason);
    *p++ = ',';
    p = put_uint(p, r.preemptions, ',');
    p = put_uint(p, r.failures, ',');
    p = put_uint(p, r.restarts, ',');
    p = gpu_seconds(p, r.attained_gpu_us);
    p = gpu_seconds(p, r.lost_gpu_us);
    // Per task. Whole CPUs and whole GB (the usual case) as plain integers, without formatting.
    if (odd_cpus.empty()) {
      p = put_uint(p, r.cpu_milli / cluster::kMilliPerCpu, ',');
    } else {
      p = put_text(p, odd_cpus);
      *p++ = ',';
    }
    if (odd_mem.empty()) {
      p = put_uint(p, r.mem_mib / cluster::kMibPerGb, ',');
    } else {
      p = put_text(p, odd_mem);
      *p++ = ',';
    }
    // The scenario's pool when it has pools, else the trace's pool column.
    p = pooled ? put_text(p, pool) : util::put_csv_field(p, raw_pool);
    *p++ = ',';
    p = put_text(p, kind);
    if (recorded) {
      *p++ = ',';
      if (const auto wait_s = c.recorded_wait_s(r.id); wait_s != workload::kNoRecordedWait)
        p = engine::put_seconds(p, engine::Time{wait_s} * engine::kMicrosPerSecond);
    }
    *p++ = '\n';
    rows.done(p);
  }
  rows.flush();
}

void write_timeline_csv(std::ostream& out, const Collector& c) {
  out << "start_s,end_s,gpu_utilization,used_gpus,running_jobs,pending_jobs,free_gpus,fragmented_gpus,down_gpus,"
         "cpu_utilization,used_cpus\n";
  const double total = static_cast<double>(c.topology().total_gpus());
  const double cpus = static_cast<double>(c.topology().total_cpu_milli()) / 1000.0;
  util::RowBuffer rows(out);
  for (const auto& r : c.timeline()) {
    char* p = rows.room(11 * (util::kFixedTextMax + 1));
    p = put_fixed(p, engine::to_seconds(r.start), 0, ',');
    p = put_fixed(p, engine::to_seconds(r.end), 0, ',');
    p = put_fixed(p, total > 0 ? r.used_gpus / total : 0.0, 6, ',');
    p = put_fixed(p, r.used_gpus, 3, ',');
    p = put_fixed(p, r.running_jobs, 3, ',');
    p = put_fixed(p, r.pending_jobs, 3, ',');
    p = put_fixed(p, r.free_gpus, 3, ',');
    p = put_fixed(p, r.fragmented_gpus, 3, ',');
    p = put_fixed(p, r.down_gpus, 3, ',');
    p = put_fixed(p, cpus > 0 ? r.used_cpus / cpus : 0.0, 6, ',');
    p = put_fixed(p, r.used_cpus, 3, '\n');
    rows.done(p);
  }
  rows.flush();
}

void write_pools_timeline_csv(std::ostream& out, const Collector& c) {
  out << "start_s,end_s,pool,parent,gpus_allocated,gpus_entitled,cpus_allocated,cpus_entitled,mem_gb_allocated,"
         "mem_gb_entitled,pending_gpus\n";
  const auto& pools = c.pools();
  std::vector<std::string> names, parents;
  for (const auto& p : pools) {
    util::append_csv_field(names.emplace_back(), p.name);
    parents.emplace_back();
    if (p.parent >= 0) util::append_csv_field(parents.back(), pools[static_cast<std::size_t>(p.parent)].name);
  }
  const auto& rows = c.timeline();
  util::RowBuffer buf(out);
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t k = 0; k < pools.size(); ++k) {
      const auto& x = c.pool_cell(i, k);
      char* p = buf.room(9 * (util::kFixedTextMax + 1) + names[k].size() + parents[k].size() + 2);
      p = put_fixed(p, engine::to_seconds(rows[i].start), 0, ',');
      p = put_fixed(p, engine::to_seconds(rows[i].end), 0, ',');
      p = put_text(p, names[k]);
      *p++ = ',';
      p = put_text(p, parents[k]);
      *p++ = ',';
      p = put_fixed(p, x.gpus_allocated, 3, ',');
      p = put_fixed(p, x.gpus_entitled, 3, ',');
      p = put_fixed(p, x.cpus_allocated, 3, ',');
      p = put_fixed(p, x.cpus_entitled, 3, ',');
      p = put_fixed(p, x.mem_gb_allocated, 3, ',');
      p = put_fixed(p, x.mem_gb_entitled, 3, ',');
      p = put_fixed(p, x.pending_gpus, 3, '\n');
      buf.done(p);
    }
  buf.flush();
}

void write_summary_json(std::ostream& out, const Summary& s, const std::string& scenario) {
  nlohmann::ordered_json j;
  j["scenario"] = scenario;
  j["total_gpus"] = s.total_gpus;
  // Top-level and by this name: sweep collect and the figure scripts read it.
  auto load = [](std::optional<double> v) -> nlohmann::ordered_json {
    return v ? nlohmann::ordered_json(std::round(*v * 1e6) / 1e6) : nlohmann::ordered_json(nullptr);
  };
  j["offered_load"] = load(s.offered_load.overall);
  auto& per_model = j["offered_load_by_model"] = nlohmann::ordered_json::object();
  for (const auto& [model, v] : s.offered_load.by_model) per_model[model] = load(v);
  j["skipped_rows"] = s.skipped_rows;
  auto& why = j["skipped_rows_by_reason"] = nlohmann::ordered_json::object();
  for (const auto& [reason, n] : s.skipped_by_reason) why[reason] = n;
  j["percentile_method"] = kPercentileMethod;
  for (const auto& f : summary_figures()) {
    const double value = f.value(s);
    auto& field = j[std::string(f.name)];
    if (!has_value(value))
      field = nullptr;
    else if (f.unit == FigureUnit::count)
      field = static_cast<std::uint64_t>(value);
    else
      field = std::round(value * 1e6) / 1e6;
  }
  auto rounded = [](double v) { return std::round(v * 1e6) / 1e6; };
  if (!s.services.empty()) {
    auto& list = j["services"] = nlohmann::ordered_json::array();
    for (const auto& f : s.services)
      list.push_back({{"name", f.name},
                      {"availability", rounded(f.availability)},
                      {"instances_max", f.instances_max},
                      {"restarts", f.restarts},
                      {"failures", f.failures}});
  }
  if (!s.cron.empty()) {
    auto& list = j["cron"] = nlohmann::ordered_json::array();
    for (const auto& f : s.cron)
      list.push_back({{"name", f.name},
                      {"occurrences", f.occurrences},
                      {"started", f.started},
                      {"start_delay_mean_s", rounded(f.delay_mean_s)},
                      {"start_delay_max_s", rounded(f.delay_max_s)},
                      {"skipped", f.skipped},
                      {"overlapping", f.overlapping},
                      {"dropped", f.dropped}});
  }
  if (const auto& w = s.recorded_wait) {
    auto value = [&](double v) {
      return has_value(v) ? nlohmann::ordered_json(rounded(v)) : nlohmann::ordered_json(nullptr);
    };
    j["recorded_wait"] = {{"jobs", w->recorded},
                          {"compared", w->compared},
                          {"recorded_mean_s", value(w->recorded_mean_s)},
                          {"recorded_p50_s", value(w->recorded_p50_s)},
                          {"recorded_p90_s", value(w->recorded_p90_s)},
                          {"simulated_first_wait_mean_s", value(w->simulated_mean_s)},
                          {"simulated_first_wait_p50_s", value(w->simulated_p50_s)},
                          {"simulated_first_wait_p90_s", value(w->simulated_p90_s)}};
  }
  if (!s.pools.empty()) {
    auto rounded_opt = [](std::optional<double> v) -> nlohmann::ordered_json {
      if (!v) return nullptr;
      return std::round(*v * 1e6) / 1e6;
    };
    auto rounded_value = [&](double v) { return rounded_opt(has_value(v) ? std::optional<double>(v) : std::nullopt); };
    j["pool_fairness_min"] = rounded_opt(s.pool_fairness_min);
    auto& pools = j["pools"] = nlohmann::ordered_json::object();
    for (const auto& p : s.pools) {
      auto& o = pools[p.name];
      o["parent"] = p.parent;
      o["jobs"] = p.jobs;
      o["finished"] = p.finished;
      o["dropped"] = p.dropped;
      o["first_wait_mean_s"] = rounded_value(p.first_wait_mean_s);
      o["first_wait_p95_s"] = rounded_value(p.first_wait_p95_s);
      o["queueing_delay_mean_s"] = rounded_value(p.queueing_delay_mean_s);
      o["jct_mean_s"] = rounded_value(p.jct_mean_s);
      o["jct_p95_s"] = rounded_value(p.jct_p95_s);
      o["gpus_allocated_mean"] = rounded_opt(p.gpus_allocated_mean);
      o["gpus_entitled_mean"] = rounded_opt(p.gpus_entitled_mean);
      o["fairness"] = rounded_opt(p.fairness);
    }
  }
  out << j.dump(2) << "\n";
}

std::string format_summary_table(const Summary& s) {
  std::string out;
  auto row = [&](std::string_view name, const std::string& value) {
    out += fmt::format("  {:<28} {:>14}\n", name, value);
  };
  for (const auto& f : summary_figures()) {
    const double v = f.value(s);
    const auto unit = unit_symbol(f.unit);
    std::string value;
    if (!has_value(v))
      value = "-";
    else if (f.unit == FigureUnit::count)
      value = fmt::format("{}", static_cast<std::uint64_t>(v));
    else if (f.unit == FigureUnit::share)
      value = fmt::format("{:.1f}%", 100 * v);
    else if (f.unit == FigureUnit::number)
      value = fmt::format("{:.3f}", v);
    else
      value = fmt::format("{:.1f}", v);
    row(f.unit == FigureUnit::seconds || f.unit == FigureUnit::gpu_hours ? fmt::format("{} ({})", f.label, unit)
                                                                          : std::string(f.label),
        value);
    if (f.name == "dropped") {
      if (s.skipped_rows) row("skipped trace rows", fmt::format("{}", s.skipped_rows));
      for (const auto& [reason, n] : s.skipped_by_reason) out += fmt::format("    {:>10}  {}\n", n, reason);
    }
  }
  row("percentiles", kPercentileMethod);
  for (const auto& f : s.services)
    out += fmt::format("  service {}: availability {:.2f}%, up to {} instances, {} restarts, {} failures\n", f.name,
                       100 * f.availability, f.instances_max, f.restarts, f.failures);
  for (const auto& f : s.cron)
    out += fmt::format(
        "  cron {}: {} occurrences, {} started, start delay mean {:.1f} s max {:.1f} s, {} skipped, {} overlapping{}\n",
        f.name, f.occurrences, f.started, f.delay_mean_s, f.delay_max_s, f.skipped, f.overlapping,
        f.dropped ? fmt::format(", {} dropped", f.dropped) : "");
  if (const auto& w = s.recorded_wait) {
    // Side by side, over the same jobs: those with a recorded wait that the simulation started.
    auto secs = [](double v) { return has_value(v) ? fmt::format("{:.1f}", v) : std::string("-"); };
    out +=
        fmt::format("  wait vs the trace's record ({} of {} jobs with a record compared)\n", w->compared, w->recorded);
    out += fmt::format("    {:<10} {:>14} {:>14}\n", "(s)", "recorded", "simulated");
    out += fmt::format("    {:<10} {:>14} {:>14}\n", "mean", secs(w->recorded_mean_s), secs(w->simulated_mean_s));
    out += fmt::format("    {:<10} {:>14} {:>14}\n", "p50", secs(w->recorded_p50_s), secs(w->simulated_p50_s));
    out += fmt::format("    {:<10} {:>14} {:>14}\n", "p90", secs(w->recorded_p90_s), secs(w->simulated_p90_s));
  }
  if (s.pools.empty()) return out;
  // Pools: one line each, indented by depth; waits and JCTs leave services out.
  auto opt = [](const std::optional<double>& v) { return v ? fmt::format("{:.3f}", *v) : std::string("-"); };
  row("pool fairness (min)", opt(s.pool_fairness_min));
  auto secs = [](double v) { return has_value(v) ? fmt::format("{:.1f}", v) : std::string("-"); };
  out += fmt::format("  {:<22} {:>6} {:>8} {:>7} {:>15} {:>15} {:>14} {:>11} {:>11} {:>9} {:>9} {:>8}\n", "pool",
                     "jobs", "finished", "dropped", "queueing mean s", "1st wait mean s", "1st wait p95 s",
                     "JCT mean s", "JCT p95 s", "GPUs held", "entitled", "fairness");
  for (const auto& p : s.pools)
    out += fmt::format("  {:<22} {:>6} {:>8} {:>7} {:>15} {:>15} {:>14} {:>11} {:>11} {:>9.1f} {:>9.1f} {:>8}\n",
                       std::string(2 * std::size_t{p.depth}, ' ') + p.name, p.jobs, p.finished, p.dropped,
                       secs(p.queueing_delay_mean_s), secs(p.first_wait_mean_s), secs(p.first_wait_p95_s),
                       secs(p.jct_mean_s), secs(p.jct_p95_s), p.gpus_allocated_mean, p.gpus_entitled_mean,
                       opt(p.fairness));
  return out;
}

}  // namespace schedlab::metrics
