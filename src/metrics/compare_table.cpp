// The table and files of `schedlab compare`: one unit per row, ratios with significant digits.
#include "metrics/compare_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "metrics/summary.h"
#include "metrics/writers.h"
#include "util/csv.h"

namespace schedlab::metrics {

namespace {
bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Decimals that give `digits` significant digits for |v| (at least `min_decimals`), so that a
// small number is never printed as 0.00; capped where a double has no more digits to give.
int decimals_for(double v, int digits, int min_decimals) {
  if (v == 0 || !std::isfinite(v)) return min_decimals;
  const int magnitude = static_cast<int>(std::floor(std::log10(std::abs(v))));
  int d = std::clamp(digits - 1 - magnitude, min_decimals, 17);
  // 0.9996 to three digits rounds up to 1.000, a magnitude higher: one decimal fewer (1.00), so
  // that a ratio keeps its number of significant digits whichever side of a power of 10 it falls.
  const double scale = std::pow(10.0, d);
  if (d > min_decimals && std::abs(std::round(v * scale) / scale) >= std::pow(10.0, magnitude + 1)) --d;
  return d;
}

// A value as both CSV files write it: counts as integers, other figures with six decimals.
std::string csv_value(const std::string& name, double v) {
  if (!has_value(v)) return "";  // a figure with no value: an empty field, never a number
  if (is_count_figure(name)) return fmt::format("{}", static_cast<std::uint64_t>(v));
  return fmt::format("{:.6f}", v);
}
}  // namespace

CompareTable make_compare_table(const std::vector<std::string>& variants,
                                const std::vector<std::vector<std::pair<std::string, double>>>& figures) {
  CompareTable table{variants, {}};
  if (figures.empty()) return table;
  for (std::size_t f = 0; f < figures[0].size(); ++f) {
    std::vector<double> values;
    for (const auto& one : figures) values.push_back(one[f].second);
    table.rows.emplace_back(figures[0][f].first, std::move(values));
  }
  return table;
}

std::string figure_in_named_unit(const std::string& name, double v) {
  if (!has_value(v)) return "-";
  if (ends_with(name, "_s")) {
    // Seconds in every column; a sub-second time keeps three significant digits.
    if (std::abs(v) >= 1 || v == 0) return fmt::format("{:.1f} s", v);
    return fmt::format("{:.{}f} s", v, decimals_for(v, 3, 1));
  }
  return human_figure(name, v);
}

std::string ratio_text(double ratio) {
  if (!std::isfinite(ratio)) return "-";
  if (ratio == 0) return "0";
  if (std::abs(ratio) >= 100) return fmt::format("{:.0f}", ratio);
  return fmt::format("{:.{}f}", ratio, decimals_for(ratio, 3, 2));
}

std::string format_compare_table(const CompareTable& table) {
  std::size_t name_width = 18;
  for (const auto& [name, values] : table.rows) name_width = std::max(name_width, name.size());
  // Each column as wide as its widest cell (at least 22), so that long names stay aligned.
  std::vector<std::vector<std::string>> cells(table.rows.size());
  std::vector<std::size_t> width(table.variants.size(), 22);
  for (std::size_t i = 0; i < table.variants.size(); ++i) width[i] = std::max(width[i], table.variants[i].size());
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const auto& [name, values] = table.rows[r];
    for (std::size_t i = 0; i < values.size(); ++i) {
      std::string cell = figure_in_named_unit(name, values[i]);
      if (i > 0 && has_value(values[i]))
        cell += values[0] != 0 && has_value(values[0]) ? " (x" + ratio_text(values[i] / values[0]) + ")"
                                                        : std::string(" (-)");
      width[i] = std::max(width[i], cell.size());
      cells[r].push_back(std::move(cell));
    }
  }
  std::string out = fmt::format("  {:<{}}", "", name_width);
  for (std::size_t i = 0; i < table.variants.size(); ++i) out += fmt::format(" {:>{}}", table.variants[i], width[i]);
  out += '\n';
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    out += fmt::format("  {:<{}}", table.rows[r].first, name_width);
    for (std::size_t i = 0; i < cells[r].size(); ++i) out += fmt::format(" {:>{}}", cells[r][i], width[i]);
    out += '\n';
  }
  return out;
}

void write_compare_csv(std::ostream& out, const CompareTable& table) {
  out << "metric";
  for (const auto& v : table.variants) out << "," << util::csv_field(v);
  for (std::size_t i = 1; i < table.variants.size(); ++i)
    out << "," << util::csv_field(table.variants[i] + "/" + table.variants[0]);
  out << "\n";
  for (const auto& [name, values] : table.rows) {
    out << util::csv_field(name);
    for (double v : values) out << "," << csv_value(name, v);
    // Ratios with six significant digits (a ratio of 2e-7 is not 0.000000).
    for (std::size_t i = 1; i < values.size(); ++i)
      out << "," << (values[0] != 0 && has_value(values[0]) && has_value(values[i])
                         ? fmt::format("{:.6g}", values[i] / values[0])
                         : std::string());
    out << "\n";
  }
}

void write_compare_long_csv(std::ostream& out, const CompareTable& table) {
  out << "variant,metric,value\n";
  for (std::size_t i = 0; i < table.variants.size(); ++i)
    for (const auto& [name, values] : table.rows)
      out << util::csv_field(table.variants[i]) << "," << util::csv_field(name) << "," << csv_value(name, values[i])
          << "\n";
}

}  // namespace schedlab::metrics
