// The compare table: one unit per row (the unit the figure's name says), ratios that keep their
// significant digits, and the wide and long CSV files, on hand-worked figures.
#include <doctest/doctest.h>

#include <limits>
#include <sstream>

#include "metrics/compare_table.h"

using namespace schedlab;
using metrics::CompareTable;

namespace {
// Two variants, the baseline first: a time under an hour beside one over it, a share, a count,
// a tiny ratio and a zero baseline.
CompareTable two_variants() {
  return metrics::make_compare_table(
      {"fifo", "las"},
      {{{"jobs", 10}, {"jct_p50_s", 1537.0}, {"wait_mean_s", 5000.0}, {"gpu_utilization", 0.236}, {"preemptions", 0}},
       {{"jobs", 10}, {"jct_p50_s", 7200.0}, {"wait_mean_s", 1.0}, {"gpu_utilization", 0.5}, {"preemptions", 3}}});
}
}  // namespace

TEST_CASE("Metrics.CompareTable.one_unit_per_row") {
  // Seconds in every column, whatever the size: never "2.00 h" beside "1537.0 s".
  CHECK(metrics::figure_in_named_unit("jct_p50_s", 1537.0) == "1537.0 s");
  CHECK(metrics::figure_in_named_unit("jct_p50_s", 7200.0) == "7200.0 s");
  CHECK(metrics::figure_in_named_unit("makespan_s", 618020.879555) == "618020.9 s");
  CHECK(metrics::figure_in_named_unit("wait_mean_s", 0.0) == "0.0 s");
  CHECK(metrics::figure_in_named_unit("wait_mean_s", 0.0123) == "0.0123 s");
  CHECK(metrics::figure_in_named_unit("gpu_utilization", 0.236) == "23.6%");
  CHECK(metrics::figure_in_named_unit("preemptions", 3) == "3");
  const std::string text = metrics::format_compare_table(two_variants());
  CHECK(text.find("1537.0 s") != std::string::npos);
  CHECK(text.find("7200.0 s (x4.68)") != std::string::npos);
  CHECK(text.find(" h") == std::string::npos);
}

TEST_CASE("Metrics.CompareTable.ratios_keep_three_significant_digits") {
  struct Case {
    double ratio;
    const char* text;
  };
  const Case cases[] = {{1.2, "1.20"},         {1.0, "1.00"},       {0.0002, "0.000200"}, {0.07, "0.0700"},
                        {0.5, "0.500"},        {0.123456, "0.123"}, {12.3456, "12.35"},    {1234.4, "1234"},
                        {0.0, "0"},            {-0.5, "-0.500"},    {1e-9, "0.00000000100"},
                        {0.9996, "1.00"},      {0.09996, "0.100"},  {-0.9996, "-1.00"}};
  for (const auto& c : cases) {
    CAPTURE(c.ratio);
    CHECK(metrics::ratio_text(c.ratio) == c.text);
  }
  CHECK(metrics::ratio_text(std::numeric_limits<double>::quiet_NaN()) == "-");
  // 1 s against 5000 s: x0.000200, not x0.00; a baseline of 0 has no ratio.
  const std::string text = metrics::format_compare_table(two_variants());
  CHECK(text.find("1.0 s (x0.000200)") != std::string::npos);
  CHECK(text.find("3 (-)") != std::string::npos);
}

TEST_CASE("Metrics.CompareTable.columns_align_with_long_variant_names") {
  const auto table = metrics::make_compare_table(
      {"a", "a-variant-name-longer-than-the-column"}, {{{"jobs", 1}}, {{"jobs", 2}}});
  std::istringstream lines(metrics::format_compare_table(table));
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  CHECK(header.size() == row.size());
}

TEST_CASE("Metrics.CompareTable.wide_and_long_csv") {
  std::ostringstream wide, tidy;
  metrics::write_compare_csv(wide, two_variants());
  metrics::write_compare_long_csv(tidy, two_variants());
  CHECK(wide.str() ==
        "metric,fifo,las,las/fifo\n"
        "jobs,10,10,1\n"
        "jct_p50_s,1537.000000,7200.000000,4.68445\n"
        "wait_mean_s,5000.000000,1.000000,0.0002\n"
        "gpu_utilization,0.236000,0.500000,2.11864\n"
        "preemptions,0,3,\n");
  CHECK(tidy.str() ==
        "variant,metric,value\n"
        "fifo,jobs,10\n"
        "fifo,jct_p50_s,1537.000000\n"
        "fifo,wait_mean_s,5000.000000\n"
        "fifo,gpu_utilization,0.236000\n"
        "fifo,preemptions,0\n"
        "las,jobs,10\n"
        "las,jct_p50_s,7200.000000\n"
        "las,wait_mean_s,1.000000\n"
        "las,gpu_utilization,0.500000\n"
        "las,preemptions,3\n");
}

TEST_CASE("Metrics.CompareTable.variant_names_are_csv_fields") {
  std::ostringstream tidy;
  metrics::write_compare_long_csv(tidy, metrics::make_compare_table({"a,b"}, {{{"jobs", 1}}}));
  CHECK(tidy.str() == "variant,metric,value\n\"a,b\",jobs,1\n");
}
