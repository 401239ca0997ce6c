// Reading each cell's summary.json once; the grid point of cell i is i / seeds (seeds vary
// fastest), so the points come out in order without sorting.
#include "sweep/sweep_collect.h"

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <sstream>

#include "util/yaml_util.h"
#include "metrics/writers.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/json_read.h"
#include "util/staging_dir.h"

namespace schedlab::sweep {

namespace {
// The numbers at the top of a summary.json, in its order (nested sections are left out).
std::vector<std::pair<std::string, double>> numbers_of(const std::string& path) {
  nlohmann::ordered_json j;
  try {
    j = util::parse_ordered_json(util::read_config_file(path));
  } catch (const util::JsonReadError& e) {
    throw util::InputError(path, 0, "", fmt::format("not JSON: {}", e.what()));
  }
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [k, v] : j.items())
    if (v.is_number()) out.emplace_back(k, v.get<double>());
  return out;
}

std::string number(double v) { return fmt::format("{}", v); }

const char* kHeadline[] = {"jct_mean_s", "queueing_delay_mean_s", "makespan_s", "gpu_utilization"};

}  // namespace

Collected collect(const SweepSpec& spec, const SweepFolder& folder) {
  Collected c;
  c.cells = cell_count(spec);
  const std::size_t seeds = spec.seeds.size();
  std::string tidy = "cell,seed";
  for (const auto& a : spec.grid) tidy += "," + util::csv_field(a.key);
  tidy += ",metric,value\n";
  // Per grid point: metric -> values over its seeds.
  std::map<std::string, std::vector<double>> point;
  std::vector<std::string> point_metrics;
  auto flush_point = [&](std::size_t first_cell) {
    const auto cell = cell_at(spec, first_cell);
    for (const auto& m : point_metrics) c.summary.push_back({cell.values, m, seed_stats(point[m])});
    point.clear();
    point_metrics.clear();
  };
  for (std::size_t i = 0; i < c.cells; ++i) {
    if (i > 0 && i % seeds == 0) flush_point(i - seeds);
    if (!folder.done(i)) {
      c.missing.push_back(i);
      continue;
    }
    const auto cell = cell_at(spec, i);
    std::string prefix = fmt::format("{},{}", cell_name(i), cell.seed);
    for (const auto& v : cell.values) prefix += "," + util::csv_field(v);
    for (const auto& [metric, value] : numbers_of(folder.cell_dir(i) + "/summary.json")) {
      tidy += prefix;
      tidy += ",";
      tidy += util::csv_field(metric);
      tidy += ",";
      tidy += number(value);
      tidy += "\n";
      auto& values = point[metric];
      if (values.empty()) point_metrics.push_back(metric);
      values.push_back(value);
      if (c.metrics.size() < 256 && std::find(c.metrics.begin(), c.metrics.end(), metric) == c.metrics.end())
        c.metrics.push_back(metric);
    }
    ++c.read;
  }
  if (c.cells > 0) flush_point(c.cells - seeds);

  std::string summary;
  for (const auto& a : spec.grid) summary += util::csv_field(a.key) + ",";
  summary += "metric,n,mean,sd,ci95_low,ci95_high\n";
  for (const auto& p : c.summary) {
    for (const auto& v : p.values) summary += util::csv_field(v) + ",";
    summary +=
        fmt::format("{},{},{},{},{},{}\n", util::csv_field(p.metric), p.stats.n, number(p.stats.mean),
                    number(p.stats.sd), number(p.stats.mean - p.stats.ci95), number(p.stats.mean + p.stats.ci95));
  }
  util::write_staged(folder.dir + "/sweep.csv", tidy);
  util::write_staged(folder.dir + "/sweep-summary.csv", summary);
  return c;
}

std::string format_collected(const SweepSpec& spec, const Collected& c) {
  std::string out;
  std::vector<std::string> cols;
  for (const char* m : kHeadline)
    if (std::find(c.metrics.begin(), c.metrics.end(), m) != c.metrics.end()) cols.push_back(m);
  std::vector<std::size_t> widths;
  for (const auto& a : spec.grid) widths.push_back(std::max<std::size_t>(a.key.size(), 8));
  std::string header;
  for (std::size_t a = 0; a < spec.grid.size(); ++a) header += fmt::format("{:<{}}  ", spec.grid[a].key, widths[a]);
  header += fmt::format("{:>5}", "seeds");
  for (const auto& m : cols) header += fmt::format("  {:>24}", m);
  out += header + "\n";
  // One row per grid point: the summary holds each point's metrics consecutively.
  for (std::size_t i = 0; i < c.summary.size();) {
    const auto& values = c.summary[i].values;
    std::map<std::string, const PointSummary*> row;
    std::size_t n = 0;
    for (; i < c.summary.size() && c.summary[i].values == values; ++i) {
      row[c.summary[i].metric] = &c.summary[i];
      n = std::max(n, c.summary[i].stats.n);
    }
    std::string line;
    for (std::size_t a = 0; a < values.size(); ++a) line += fmt::format("{:<{}}  ", values[a], widths[a]);
    line += fmt::format("{:>5}", n);
    for (const auto& m : cols) {
      auto it = row.find(m);
      std::string cell = "-";
      if (it != row.end()) {
        const auto& s = it->second->stats;
        cell = metrics::human_figure(m, s.mean);
        if (s.n > 1) cell += " ± " + metrics::human_figure(m, s.ci95);
      }
      line += fmt::format("  {:>24}", cell);
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace schedlab::sweep
