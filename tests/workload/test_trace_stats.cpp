// Trace statistics over a small hand-made trace.
#include <doctest/doctest.h>

#include "../support/sim_harness.h"
#include "workload/trace_stats.h"

using namespace schedlab;
using namespace schedlab::testing;
using namespace schedlab::workload;

TEST_CASE("Workload.TraceStats.counts_histogram_percentiles_and_gpu_hours") {
  // Four jobs: 1 GPU for 1 h, a 2 x 8 GPU job for 30 min, a quarter GPU for 2 h, 4 GPUs
  // for 15 min, the last submitted 25 h after the first.
  VectorSource src({{0, 3600, 1, 1},
                    {60, 1800, 2, 8},
                    {7200, 7200, 1, 1, 250},
                    {25 * 3600, 900, 1, 4}});
  TraceStats s = compute_trace_stats(src);
  CHECK(s.jobs == 4);
  CHECK(s.first_submit_s == 0);
  CHECK(s.last_submit_s == 90000);
  CHECK(s.multi_task_jobs == 1);
  CHECK(s.gpu_histogram == std::map<double, std::uint64_t>{{0.25, 1}, {1, 1}, {4, 1}, {16, 1}});
  // GPU-hours: 1 + 8 + 0.5 + 1.
  CHECK(s.total_gpu_hours == doctest::Approx(10.5));
  CHECK(s.gpu_hours_by_class.at("<1 GPU") == doctest::Approx(0.5));
  CHECK(s.gpu_hours_by_class.at("1 GPU") == doctest::Approx(1));
  CHECK(s.gpu_hours_by_class.at("2-8 GPUs") == doctest::Approx(1));
  CHECK(s.gpu_hours_by_class.at("9-64 GPUs") == doctest::Approx(8));
  // Durations 900, 1800, 3600, 7200: p10 -> rank 1, p50 -> rank 2, p90 and above -> rank 4.
  REQUIRE(s.duration_percentiles_s.size() == TraceStats::kPercentiles.size());
  CHECK(s.duration_percentiles_s[0] == 900);
  CHECK(s.duration_percentiles_s[1] == 1800);
  CHECK(s.duration_percentiles_s[2] == 7200);
  CHECK(s.duration_percentiles_s[5] == 7200);
  // Hours since the first submit, mod 24: 0, 0, 2, 25 -> 1.
  CHECK(s.arrivals_by_hour[0] == 2);
  CHECK(s.arrivals_by_hour[1] == 1);
  CHECK(s.arrivals_by_hour[2] == 1);
  std::string text = format_trace_stats(s, "hand.csv");
  CHECK(text.find("trace: hand.csv") != std::string::npos);
  CHECK(text.find("jobs                 4") != std::string::npos);
}

TEST_CASE("Workload.TraceStats.empty_source") {
  VectorSource src({});
  TraceStats s = compute_trace_stats(src);
  CHECK(s.jobs == 0);
  CHECK(s.total_gpu_hours == 0);
  for (double p : s.duration_percentiles_s) CHECK(p == 0);
  CHECK_NOTHROW(format_trace_stats(s, "empty"));
}
