// Hand-worked cases for the metric definitions of docs/metrics.md: queueing delay beside the
// first wait, slowdown and bounded slowdown, the measurement window (default, warm-up, given),
// Jain's index, the percentile method, and no sentinel values in the files.
#include <doctest/doctest.h>

#include <sstream>

#include "../support/sim_harness.h"
#include "metrics/compare_table.h"
#include "metrics/summary.h"
#include "metrics/summary_figures.h"
#include "metrics/writers.h"

using namespace schedlab;
using namespace schedlab::metrics;
using namespace schedlab::testing;

namespace {
InstantState used(double t_s, std::uint64_t gpus, std::uint64_t fragmented = 0) {
  InstantState s;
  s.now = sec(t_s);
  s.used_milli = gpus * 1000;
  s.fragmented_gpus = fragmented;
  return s;
}
workload::JobSpec one_gpu_job(workload::JobId id) {
  workload::JobSpec j;
  j.id = id;
  j.trace_number = id;
  j.tasks = 1;
  j.gpus_per_task = 1;
  return j;
}
LifeEvent life_at(LifeStep step, double t_s, const workload::JobSpec& j, const sched::JobLife& l) {
  LifeEvent e;
  e.step = step;
  e.now = sec(t_s);
  e.job = &j;
  e.life = &l;
  return e;
}

// 4 GPUs. Submissions at 0 and 100 s; 2 GPUs held from 0 to 50 s, 4 from 50 to 200 s, the
// run ends at 200 s. GPU-seconds: 100 in 0..50, 200 in 50..100, 400 in 100..200.
void load_run(Collector& c) {
  const auto a = one_gpu_job(0), b = one_gpu_job(1);
  c.on_submit(a, 0);
  c.on_instant(used(0, 2, 1));
  c.on_instant(used(50, 4));
  c.on_submit(b, sec(100));
  c.on_instant(used(100, 4));
  c.on_instant(used(200, 0));
  c.on_run_end(a, cluster::Placement{{{0, 1, 0, 0}}}, 0, sec(200), true);  // the last end: makespan 200 s
  c.on_finish(sec(200));
}
}  // namespace

TEST_CASE("Metrics.Definitions.slowdown_and_bounded_slowdown") {
  struct Case {
    double jct_s, run_s, bounded;
  };
  // max(1, JCT / max(run, 10 s)).
  const Case cases[] = {
      {100, 50, 2},   // (50 s pending + 50 s run) / 50
      {30, 5, 3},     // a 5 s job that waited 25 s: 30 / 10, not 30 / 5
      {5, 2, 1},      // 5 / 10 = 0.5: bounded below by 1
      {10, 10, 1},    // never waited
      {0, 0, 1},      // a job of no run time at all
      {3600, 1, 360}, // an hour for one second of work
  };
  for (const auto& c : cases) {
    CAPTURE(c.jct_s);
    CAPTURE(c.run_s);
    CHECK(bounded_slowdown(c.jct_s, c.run_s) == doctest::Approx(c.bounded));
  }
  CHECK(kSlowdownBound_s == 10);
}

TEST_CASE("Metrics.Definitions.queueing_delay_counts_time_pending_after_a_preemption") {
  // One job: submitted at 0, starts at 10, preempted at 40 (held 10..40), restarts at 70,
  // finishes at 100. JCT 100 = queueing delay (10 + 30) + run time (30 + 30).
  auto catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 1, 4), catalog);
  Collector c(topo, 60 * kMicrosPerSecond, nullptr);
  const auto j = one_gpu_job(0);
  const cluster::Placement p{{{0, 1, 0, 0}}};
  sched::JobLife l;
  c.on_submit(j, 0);
  c.on_start(j, p, sec(10), true);
  c.on_life(life_at(LifeStep::start, 10, j, l));
  ++l.preemptions;
  c.on_life(life_at(LifeStep::stop, 40, j, l));  // as the simulation: its run time is added after this event
  l.attained = sec(30);
  c.on_run_end(j, p, sec(10), sec(40), false);
  c.on_start(j, p, sec(70), false);
  ++l.restarts;
  c.on_life(life_at(LifeStep::restart, 70, j, l));
  l.attained = sec(60);
  c.on_run_end(j, p, sec(70), sec(100), true);
  c.on_life(life_at(LifeStep::finish, 100, j, l));
  c.on_finish(sec(100));
  const Summary s = summarize(c, 0);
  CHECK(s.jct_mean_s == doctest::Approx(100));
  CHECK(s.first_wait_mean_s == doctest::Approx(10));
  CHECK(s.queueing_delay_mean_s == doctest::Approx(40));
  CHECK(s.queueing_delay_p99_s == doctest::Approx(40));
  CHECK(s.slowdown_mean == doctest::Approx(100.0 / 60));
  CHECK(s.bounded_slowdown_mean == doctest::Approx(100.0 / 60));
  std::ostringstream csv;
  workload::StringPool strings;
  write_jobs_csv(csv, c, strings);
  // first_wait_s, queueing_delay_s, run_s, jct_s side by side.
  CHECK(csv.str().find("\n0,0,,0.000000,10.000000,100.000000,10.000000,40.000000,60.000000,100.000000,1,1,") !=
        std::string::npos);
}

TEST_CASE("Metrics.Definitions.utilization_over_the_measurement_window") {
  auto catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 1, 4), catalog);
  struct Case {
    const char* name;
    MeasureWindow window;
    double start_s, end_s, utilization, fragmentation;
  };
  const Case cases[] = {
      // First to last submission: (100 + 200) / (4 x 100); 1 fragmented GPU over 0..50.
      {"default", {}, 0, 100, 0.75, 50.0 / 400},
      // 50 s of warm-up: 200 / (4 x 50).
      {"warm-up", {std::nullopt, std::nullopt, sec(50)}, 50, 100, 1.0, 0},
      // Given, past the end of the run (idle there): 400 in 100..200 of 4 x 200.
      {"given", {sec(100), sec(300), 0}, 100, 300, 0.5, 0},
      // Given start and warm-up: 125..200, 4 GPUs throughout.
      {"given + warm-up", {sec(100), sec(200), sec(25)}, 125, 200, 1.0, 0},
      // Given end only: 0..75: (100 + 100) / (4 x 75).
      {"given end", {std::nullopt, sec(75), 0}, 0, 75, 200.0 / 300, 50.0 / 300},
  };
  for (const auto& k : cases) {
    CAPTURE(k.name);
    Collector c(topo, 60 * kMicrosPerSecond, nullptr, k.window);
    load_run(c);
    const Summary s = summarize(c, 0);
    CHECK(s.window_start_s == doctest::Approx(k.start_s));
    CHECK(s.window_end_s == doctest::Approx(k.end_s));
    CHECK(s.gpu_utilization == doctest::Approx(k.utilization));
    CHECK(s.fragmentation == doctest::Approx(k.fragmentation));
    // The whole run, drain tail included, whatever the window: 700 / (4 x 200).
    CHECK(s.gpu_utilization_makespan == doctest::Approx(700.0 / 800));
  }
}

TEST_CASE("Metrics.Definitions.an_empty_window_has_no_utilization") {
  auto catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 1, 4), catalog);
  // A warm-up past the last submission, and a run with one submission.
  Collector late(topo, 60 * kMicrosPerSecond, nullptr, {std::nullopt, std::nullopt, sec(150)});
  load_run(late);
  Collector one(topo, 60 * kMicrosPerSecond, nullptr);
  one.on_submit(one_gpu_job(0), 0);
  one.on_instant(used(0, 1));
  one.on_instant(used(10, 0));
  one.on_finish(sec(10));
  for (const Collector* c : {&late, &one}) {
    const Summary s = summarize(*c, 0);
    CHECK_FALSE(c->window());
    CHECK_FALSE(has_value(s.gpu_utilization));
    CHECK_FALSE(has_value(s.window_start_s));
    // Written as null, printed as a dash, never a number.
    std::ostringstream json;
    write_summary_json(json, s, "x");
    CHECK(json.str().find("\"gpu_utilization\": null,") != std::string::npos);
    CHECK(json.str().find("\"jain_fairness\": null,") != std::string::npos);
    CHECK(format_summary_table(s).find(fmt::format("\n  {:<28} {:>14}\n", "GPU utilization", "-")) !=
          std::string::npos);
  }
}

TEST_CASE("Metrics.Definitions.figures_without_a_value_in_the_compare_table_and_files") {
  const auto table =
      make_compare_table({"a", "b"}, {{{"jain_fairness", kNoValue}, {"jct_mean_s", 10}},
                                      {{"jain_fairness", 0.5}, {"jct_mean_s", kNoValue}}});
  const std::string text = format_compare_table(table);
  CHECK(text.find(fmt::format("  {:<18} {:>22} {:>22}\n", "jain_fairness", "-", "0.5 (-)")) != std::string::npos);
  CHECK(text.find(fmt::format("  {:<18} {:>22} {:>22}\n", "jct_mean_s", "10.0 s", "-")) != std::string::npos);
  std::ostringstream wide, long_form;
  write_compare_csv(wide, table);
  write_compare_long_csv(long_form, table);
  CHECK(wide.str() == "metric,a,b,b/a\njain_fairness,,0.500000,\njct_mean_s,10.000000,,\n");
  CHECK(long_form.str() ==
        "variant,metric,value\na,jain_fairness,\na,jct_mean_s,10.000000\nb,jain_fairness,0.500000\nb,jct_mean_s,\n");
}

TEST_CASE("Metrics.Definitions.summary_json_names_the_percentile_method_and_every_figure_once") {
  const Summary s;
  std::ostringstream json;
  write_summary_json(json, s, "x");
  CHECK(json.str().find("\"percentile_method\": \"linear\",") != std::string::npos);
  for (const auto& f : summary_figures()) {
    CAPTURE(f.name);
    const std::string key = "\"" + std::string(f.name) + "\":";
    const auto first = json.str().find(key);
    CHECK(first != std::string::npos);
    CHECK(json.str().find(key, first + 1) == std::string::npos);
    CHECK(find_figure(f.name) == &f);
    CHECK_FALSE(f.how.empty());
    // A time is named ..._s, and only a time.
    CHECK((f.unit == FigureUnit::seconds) == f.name.ends_with("_s"));
  }
}

TEST_CASE("Metrics.Definitions.a_job_without_a_trace_row_has_an_empty_trace_id") {
  auto catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 1, 4), catalog);
  Collector c(topo, 60 * kMicrosPerSecond, nullptr);
  auto j = one_gpu_job(0);
  j.trace_number = kNoTraceNumber;  // submitted over the API
  c.on_submit(j, 0);
  c.on_finish(sec(1));
  std::ostringstream csv;
  workload::StringPool strings;
  write_jobs_csv(csv, c, strings);
  CHECK(csv.str().find("\n0,,,0.000000,") != std::string::npos);
  CHECK(csv.str().find("18446744073709551615") == std::string::npos);
  CHECK(csv.str().find("-1") == std::string::npos);
  CHECK(trace_name(workload::kNoLabel, kNoTraceNumber, strings).empty());
}
