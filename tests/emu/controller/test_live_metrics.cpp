// GET /metrics' text (emu/controller/live_metrics.h) read back by a strict parser of the
// exposition format (tests/support/prometheus_parser.h): names, labels, TYPE before samples,
// histograms cumulative to +Inf with _count equal to it; the figures it carries from a run's
// view; the histograms' bucketing. The parser is checked to refuse what it must, so that a
// passing text means something. The route over HTTP: test_live_routes.cpp.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "emu/controller/live_metrics.h"
#include "support/prometheus_parser.h"
#include "support/sim_harness.h"

using namespace schedlab;
using namespace schedlab::emu;

namespace {

std::size_t state_index(sched::JobState s) { return static_cast<std::size_t>(s); }

// Two hosts of 4 GPUs: h0 with 3 busy and 1 free, h1 with 1 down and 3 free.
sim::RunView two_host_view() {
  sim::RunView v;
  v.now = engine::from_seconds(125.5);
  v.hosts = {{4, 1, 0}, {4, 3, 1}};
  v.pending_jobs = 2;
  v.jobs_by_state[state_index(sched::JobState::pending)] = 2;
  v.jobs_by_state[state_index(sched::JobState::running)] = 1;
  v.jobs_by_state[state_index(sched::JobState::finished)] = 7;
  v.jobs_by_state[state_index(sched::JobState::failed)] = 1;
  v.preemptions = 3;
  v.failures = 4;
  return v;
}

}  // namespace

TEST_CASE("Emu.LiveMetrics.the_text_passes_a_strict_parser_and_carries_the_views_figures") {
  const cluster::GpuCatalog catalog = testing::small_catalog();
  const cluster::Topology topo{testing::uniform_cluster(1, 2, 4), catalog};
  const std::vector<double> lag_us = {50, 300, 800, 40000, 2e7};
  const std::vector<double> latency_ms = {12, 80, 700};
  const auto text = prometheus_text(live_figures(two_host_view(), topo, 1, lag_us, latency_ms));
  const auto p = testing::parse_prometheus_text(text);
  REQUIRE_MESSAGE(p.ok(), p.error, "\n", text);

  for (const auto& [name, family] : p.families) {
    CHECK_MESSAGE(name.rfind("schedlab_", 0) == 0, name);
    CHECK_MESSAGE(!family.help.empty(), name);
  }
  const std::string model = topo.catalog().model(topo.host(0).model).name;
  const struct {
    std::string name;
    std::map<std::string, std::string> labels;
    double value;
    std::string type;
  } expected[] = {
      {"schedlab_trace_time_seconds", {}, 125.5, "gauge"},
      {"schedlab_jobs", {{"state", "pending"}}, 2, "gauge"},
      {"schedlab_jobs", {{"state", "running"}}, 1, "gauge"},
      {"schedlab_jobs", {{"state", "stopping"}}, 0, "gauge"},
      {"schedlab_jobs", {{"state", "finished"}}, 7, "gauge"},
      {"schedlab_jobs", {{"state", "failed"}}, 1, "gauge"},
      {"schedlab_jobs", {{"state", "dropped"}}, 0, "gauge"},
      {"schedlab_queue_length", {}, 2, "gauge"},
      {"schedlab_gpus", {{"host", "h0"}, {"model", model}, {"state", "busy"}}, 3, "gauge"},
      {"schedlab_gpus", {{"host", "h0"}, {"model", model}, {"state", "idle"}}, 1, "gauge"},
      {"schedlab_gpus", {{"host", "h0"}, {"model", model}, {"state", "down"}}, 0, "gauge"},
      {"schedlab_gpus", {{"host", "h1"}, {"model", model}, {"state", "busy"}}, 0, "gauge"},
      {"schedlab_gpus", {{"host", "h1"}, {"model", model}, {"state", "idle"}}, 3, "gauge"},
      {"schedlab_gpus", {{"host", "h1"}, {"model", model}, {"state", "down"}}, 1, "gauge"},
      {"schedlab_preemptions_total", {}, 3, "counter"},
      {"schedlab_failures_total", {}, 4, "counter"},
      {"schedlab_agents_registered", {}, 1, "gauge"},
      {"schedlab_hosts", {}, 2, "gauge"},
      // 50 us, 300 us, 800 us, 40 ms, 20 s: in 0.0001, 0.0005, 0.001, 0.05 and past every bound.
      {"schedlab_clock_lag_seconds_bucket", {{"le", "0.0001"}}, 1, ""},
      {"schedlab_clock_lag_seconds_bucket", {{"le", "0.0005"}}, 2, ""},
      {"schedlab_clock_lag_seconds_bucket", {{"le", "0.001"}}, 3, ""},
      {"schedlab_clock_lag_seconds_bucket", {{"le", "0.025"}}, 3, ""},
      {"schedlab_clock_lag_seconds_bucket", {{"le", "0.05"}}, 4, ""},
      {"schedlab_clock_lag_seconds_bucket", {{"le", "10"}}, 4, ""},
      {"schedlab_clock_lag_seconds_bucket", {{"le", "+Inf"}}, 5, ""},
      {"schedlab_clock_lag_seconds_count", {}, 5, ""},
      {"schedlab_scheduling_latency_seconds_bucket", {{"le", "0.025"}}, 1, ""},
      {"schedlab_scheduling_latency_seconds_bucket", {{"le", "0.1"}}, 2, ""},
      {"schedlab_scheduling_latency_seconds_bucket", {{"le", "1"}}, 3, ""},
      {"schedlab_scheduling_latency_seconds_count", {}, 3, ""},
  };
  for (const auto& e : expected) {
    CAPTURE(e.name);
    const auto v = p.value(e.name, e.labels);
    REQUIRE(v.has_value());
    CHECK(*v == doctest::Approx(e.value));
    if (!e.type.empty()) CHECK(p.families.at(e.name).type == e.type);
  }
  CHECK(p.families.at("schedlab_clock_lag_seconds").type == "histogram");
  CHECK(*p.value("schedlab_clock_lag_seconds_sum") == doctest::Approx(20.04115));
  CHECK(*p.value("schedlab_scheduling_latency_seconds_sum") == doctest::Approx(0.792));
  CHECK(p.families.at("schedlab_gpus").samples.size() == 6);  // 2 hosts x busy, idle, down
}

TEST_CASE("Emu.LiveMetrics.label_values_are_escaped_and_read_back_whole") {
  LiveFigures f;
  f.hosts.push_back({"h0", "odd \"model\" \\ with\nline", 1, 2, 3});
  f.clock_lag = histogram_of({}, 1, clock_lag_buckets());
  f.scheduling_latency = histogram_of({}, 1, scheduling_latency_buckets());
  const auto text = prometheus_text(f);
  const auto p = testing::parse_prometheus_text(text);
  REQUIRE_MESSAGE(p.ok(), p.error, "\n", text);
  CHECK(p.value("schedlab_gpus", {{"host", "h0"}, {"model", "odd \"model\" \\ with\nline"}, {"state", "down"}}) == 3);
  // No observation yet: every bucket 0, +Inf and _count 0 too.
  CHECK(p.value("schedlab_clock_lag_seconds_bucket", {{"le", "+Inf"}}) == 0);
  CHECK(p.value("schedlab_clock_lag_seconds_count") == 0);
}

TEST_CASE("Emu.LiveMetrics.histogram_buckets_are_inclusive_cumulative_and_negatives_count_as_zero") {
  const struct {
    std::vector<double> samples;
    double scale;
    std::vector<std::uint64_t> cumulative;  // over bounds 1, 2, 5
    std::uint64_t count;
    double sum;
  } cases[] = {
      {{}, 1, {0, 0, 0}, 0, 0},
      {{1, 2, 5}, 1, {1, 2, 3}, 3, 8},          // a value on a bound is in its bucket (le)
      {{1.5, 1.5, 9}, 1, {0, 2, 2}, 3, 12},     // 9 only in +Inf
      {{-3, 0.5}, 1, {2, 2, 2}, 2, 0.5},        // -3 counts as 0
      {{1500, 4000}, 1e-3, {0, 1, 2}, 2, 5.5},  // milliseconds to seconds
  };
  for (const auto& c : cases) {
    const auto h = histogram_of(c.samples, c.scale, {1, 2, 5});
    CHECK(h.cumulative == c.cumulative);
    CHECK(h.count == c.count);
    CHECK(h.sum == doctest::Approx(c.sum));
  }
}

TEST_CASE("Emu.LiveMetrics.the_strict_parser_refuses_what_a_scraper_would") {
  const std::string head = "# HELP m_seconds a histogram\n# TYPE m_seconds histogram\n";
  const struct {
    std::string text;
    std::string why;
  } bad[] = {
      {"x 1\n", "x before its TYPE"},
      {"# TYPE x gauge\nx 1", "does not end with a line feed"},
      {"# TYPE x gauge\n# TYPE x gauge\nx 1\n", "a second TYPE"},
      {"# TYPE x gauge\nx 1\n# TYPE y gauge\ny 1\nx 2\n", "series x{} twice"},
      {"# TYPE x gauge\nx 1\n# TYPE x counter\n", "a second TYPE"},
      {"# TYPE 1x gauge\n", "bad metric name '1x'"},
      {"# TYPE x wobble\n", "unknown type 'wobble'"},
      {"# TYPE x gauge\nx{a=\"1\"} one\n", "bad value 'one'"},
      {"# TYPE x gauge\nx{a=1} 1\n", "value not quoted"},
      {"# TYPE x gauge\nx{a-b=\"1\"} 1\n", "bad label name 'a-b'"},
      {"# TYPE x gauge\nx{a=\"\\t\"} 1\n", "bad escape"},
      {"# TYPE x gauge\nx{a=\"1\" b=\"2\"} 1\n", "expected ',' or '}'"},
      {"# TYPE x gauge\nx{a=\"1\",a=\"2\"} 1\n", "label a twice"},
      {"# TYPE x gauge\nx_total 1\n", "x_total before its TYPE"},
      {"# TYPE x counter\nx -1\n", "a counter below 0"},
      {"# TYPE x gauge\nx  1\n", "bad value ''"},
      {head + "m_seconds 1\n", "a histogram's samples are"},
      {head + "m_seconds_bucket{le=\"1\"} 2\nm_seconds_bucket{le=\"2\"} 1\nm_seconds_bucket{le=\"+Inf\"} 2\n"
              "m_seconds_sum 1\nm_seconds_count 2\n",
       "not cumulative"},
      {head + "m_seconds_bucket{le=\"2\"} 1\nm_seconds_bucket{le=\"1\"} 1\nm_seconds_bucket{le=\"+Inf\"} 2\n"
              "m_seconds_sum 1\nm_seconds_count 2\n",
       "not in increasing le"},
      {head + "m_seconds_bucket{le=\"1\"} 1\nm_seconds_sum 1\nm_seconds_count 1\n", "not le=\"+Inf\""},
      {head + "m_seconds_bucket{le=\"1\"} 1\nm_seconds_bucket{le=\"+Inf\"} 2\nm_seconds_sum 1\nm_seconds_count 3\n",
       "_count differs from the +Inf bucket"},
      {head + "m_seconds_bucket{le=\"+Inf\"} 2\nm_seconds_sum 1\n", "_count missing"},
      {head + "m_seconds_bucket{le=\"+Inf\"} 2\nm_seconds_count 2\n", "_sum missing"},
  };
  for (const auto& b : bad) {
    CAPTURE(b.text);
    const auto p = testing::parse_prometheus_text(b.text);
    CHECK_MESSAGE(p.error.find(b.why) != std::string::npos, p.error);
  }
  const auto good = testing::parse_prometheus_text(
      head +
      "m_seconds_bucket{le=\"1\"} 1\nm_seconds_bucket{le=\"+Inf\"} 2\nm_seconds_sum 1.5\nm_seconds_count 2\n"
      "# some comment\n# TYPE g gauge\ng{a=\"x\\\"y\"} 1e-05 1700000000000\n");
  CHECK_MESSAGE(good.ok(), good.error);
  CHECK(good.value("g", {{"a", "x\"y"}}) == doctest::Approx(1e-5));
}
