// The table of `schedlab compare`: one row per summary figure, one column per variant, each
// value beside its ratio to the first variant (the baseline).
//
// One unit per row, the unit the figure's name says: a time (`..._s`) in seconds in every
// column, never hours beside seconds; a share (utilization, *_ratio, goodput, fragmentation) in
// percent; a count as an integer. Ratios keep three significant digits however small (x0.000200,
// never x0.00). The same numbers go to compare.csv (wide: a row per figure, a column per
// variant, then a column per ratio) and compare-long.csv (long: variant, metric, value).
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace schedlab::metrics {

struct CompareTable {
  std::vector<std::string> variants;  // the baseline first
  // (figure name, one value per variant), in the order the summary lists its figures.
  std::vector<std::pair<std::string, std::vector<double>>> rows;
};

// A figure without a value (kNoValue: a mean over no jobs, Jain's index of one user) prints
// "-" with no ratio, and is an empty field in both CSV files.
// Builds the table from each variant's (name, value) figures; every variant lists the same
// figures in the same order as the first (they come from one Summary type).
CompareTable make_compare_table(const std::vector<std::string>& variants,
                                const std::vector<std::vector<std::pair<std::string, double>>>& figures);

// A figure in the unit its name says, for people: counts as integers, times (names ending in
// _s) in seconds ("5400.0 s"), shares in percent ("23.6%"), others with four significant
// digits; never in exponent notation.
std::string figure_in_named_unit(const std::string& name, double value);

// A ratio with three significant digits and at least two decimals ("1.20", "0.0700",
// "0.000200", "1234"); "0" for an exact zero; "-" for a ratio that is not a number.
std::string ratio_text(double ratio);

// The printed table: a header of variant names, then a line per figure with each variant's
// value and, after the first, " (xRATIO)" or " (-)" where the baseline is 0.
std::string format_compare_table(const CompareTable& table);

// compare.csv: metric, one column per variant, then one per ratio (named variant/baseline;
// empty where the baseline is 0).
void write_compare_csv(std::ostream& out, const CompareTable& table);

// compare-long.csv: variant,metric,value, one row per variant and figure (variants in order,
// figures in the summary's order); the values as compare.csv writes them.
void write_compare_long_csv(std::ostream& out, const CompareTable& table);

}  // namespace schedlab::metrics
