// Hand-worked case of the replay against the record (docs/metrics.md, "Replay against the
// record"): recorded and simulated first waits side by side over the jobs that have both, in
// the summary, summary.json, the printed table and jobs.csv; a run without records shows none.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "../support/sim_harness.h"
#include "metrics/recorded_wait.h"
#include "metrics/summary.h"
#include "metrics/writers.h"

using namespace schedlab;
using namespace schedlab::metrics;
using namespace schedlab::testing;

namespace {
workload::JobSpec job(workload::JobId id, std::uint32_t recorded_wait_s) {
  workload::JobSpec j;
  j.id = id;
  j.trace_number = id;
  j.recorded_wait_s = recorded_wait_s;
  return j;
}
}  // namespace

TEST_CASE("Metrics.RecordedWait.hand_worked") {
  auto catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 1, 4), catalog);
  Collector c(topo, 60 * kMicrosPerSecond, nullptr);
  const cluster::Placement p{{{0, 1, 0, 0}}};
  // Compared (a record, and started): recorded 100, 300, 200; simulated 10, 50, 30.
  const auto a = job(0, 100), b = job(1, 300), d = job(2, 200);
  // Not compared: e is dropped, f never starts (the run ends first), g has no record.
  const auto e = job(3, 1000), f = job(4, 50), g = job(5, workload::kNoRecordedWait);
  c.on_submit(a, 0);
  c.on_submit(b, 0);
  c.on_submit(g, 0);
  c.on_start(g, p, 0, true);
  c.on_start(a, p, sec(10), true);
  c.on_submit(d, sec(10));
  c.on_submit(e, sec(10));
  c.on_drop(e, sec(10), "never fits");
  c.on_start(d, p, sec(40), true);
  c.on_start(b, p, sec(50), true);
  c.on_submit(f, sec(60));
  for (const auto* j : {&a, &b, &d, &g}) c.on_run_end(*j, p, sec(10), sec(100), true);
  c.on_finish(sec(100));

  const Summary s = summarize(c, 0);
  REQUIRE(s.recorded_wait);
  const auto& w = *s.recorded_wait;
  CHECK(w.recorded == 5);
  CHECK(w.compared == 3);
  // Recorded 100, 200, 300: mean 200, p50 200, p90 at rank 1.8: 200 + 0.8 x 100.
  CHECK(w.recorded_mean_s == doctest::Approx(200));
  CHECK(w.recorded_p50_s == doctest::Approx(200));
  CHECK(w.recorded_p90_s == doctest::Approx(280));
  // Simulated 10, 30, 50: mean 30, p50 30, p90 30 + 0.8 x 20.
  CHECK(w.simulated_mean_s == doctest::Approx(30));
  CHECK(w.simulated_p50_s == doctest::Approx(30));
  CHECK(w.simulated_p90_s == doctest::Approx(46));

  std::ostringstream json;
  write_summary_json(json, s, "x");
  const auto j = nlohmann::json::parse(json.str());
  CHECK(j["recorded_wait"]["jobs"] == 5);
  CHECK(j["recorded_wait"]["compared"] == 3);
  CHECK(j["recorded_wait"]["recorded_p90_s"] == 280.0);
  CHECK(j["recorded_wait"]["simulated_first_wait_mean_s"] == 30.0);
  const std::string table = format_summary_table(s);
  CHECK(table.find("wait vs the trace's record (3 of 5 jobs with a record compared)") != std::string::npos);
  CHECK(table.find("    p90                 280.0           46.0\n") != std::string::npos);

  std::ostringstream csv;
  workload::StringPool strings;
  write_jobs_csv(csv, c, strings);
  const std::string text = csv.str();
  CHECK(text.substr(0, text.find('\n')) == std::string(kJobsCsvHeader) + ",recorded_wait_s");
  CHECK(text.find(",batch,100.000000\n") != std::string::npos);
  CHECK(text.find("\n5,5,") != std::string::npos);
  CHECK(text.find(",batch,\n") != std::string::npos);  // g: no record, an empty cell
}

TEST_CASE("Metrics.RecordedWait.none_without_a_record") {
  auto catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 1, 4), catalog);
  Collector c(topo, 60 * kMicrosPerSecond, nullptr);
  const auto a = job(0, workload::kNoRecordedWait);
  c.on_submit(a, 0);
  c.on_start(a, cluster::Placement{{{0, 1, 0, 0}}}, sec(5), true);
  c.on_finish(sec(10));
  const Summary s = summarize(c, 0);
  CHECK(!s.recorded_wait);
  std::ostringstream json, csv;
  write_summary_json(json, s, "x");
  CHECK(json.str().find("recorded_wait") == std::string::npos);
  CHECK(format_summary_table(s).find("record") == std::string::npos);
  workload::StringPool strings;
  write_jobs_csv(csv, c, strings);
  CHECK(csv.str().substr(0, csv.str().find('\n')) == kJobsCsvHeader);
}

TEST_CASE("Metrics.RecordedWait.records_but_none_started") {
  // Every job with a record was dropped: the comparison names its counts and has no figures.
  auto catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 1, 4), catalog);
  Collector c(topo, 60 * kMicrosPerSecond, nullptr);
  const auto a = job(0, 7);
  c.on_submit(a, 0);
  c.on_drop(a, 0, "never fits");
  c.on_finish(0);
  const auto w = compare_recorded_waits(c);
  REQUIRE(w);
  CHECK((w->recorded == 1 && w->compared == 0));
  CHECK(!has_value(w->recorded_mean_s));
  CHECK(!has_value(w->simulated_p90_s));
  std::ostringstream json;
  write_summary_json(json, summarize(c, 0), "x");
  CHECK(nlohmann::json::parse(json.str())["recorded_wait"]["recorded_mean_s"].is_null());
}
