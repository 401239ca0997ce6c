// Failures: the seeded rate model (renewal processes per host, a Poisson process of GPU
// failures), the failure trace reader, and hand-worked runs where hosts and GPUs fail.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>

#include "config/scenario.h"
#include "lifecycle_harness.h"
#include "run/scenario_run.h"
#include "util/error.h"
#include "workload/generator.h"
#include "workload/native_csv.h"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

std::vector<sim::FailureEvent> draw(sim::FailureSource& src, engine::Time horizon) {
  std::vector<sim::FailureEvent> out;
  sim::FailureEvent f;
  while (src.next(f) && f.at <= horizon) out.push_back(f);
  return out;
}

sim::FailureRates rates(double mtbf_h, double shape, double gpu_rate, double repair_h) {
  sim::FailureRates r;
  r.host_mtbf_h = mtbf_h;
  r.shape = shape;
  r.gpu_failures_per_gpu_h = gpu_rate;
  r.repair = sec(repair_h * 3600);
  return r;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const util::InputError& e) {
    return e.what();
  }
  return "no error";
}

constexpr double kHour = 3600.0 * 1e6;

}  // namespace

// --- the rate model ------------------------------------------------------------------------

TEST_CASE("Failures.Rates.same_seed_same_failures_other_seed_other_failures") {
  auto cat = small_catalog();
  cluster::Topology topo(hetero_cluster(), cat);
  const auto r = rates(100, 1, 1e-3, 2);
  auto a = sim::make_rate_failures(r, topo, 7);
  auto b = sim::make_rate_failures(r, topo, 7);
  auto c = sim::make_rate_failures(r, topo, 8);
  const auto horizon = sec(3600.0 * 1000);
  auto fa = draw(*a, horizon), fb = draw(*b, horizon), fc = draw(*c, horizon);
  REQUIRE(fa.size() == fb.size());
  REQUIRE(fa.size() > 10);
  for (std::size_t i = 0; i < fa.size(); ++i) {
    CHECK(fa[i].at == fb[i].at);
    CHECK(fa[i].host == fb[i].host);
    CHECK(fa[i].gpu == fb[i].gpu);
  }
  bool differs = fa.size() != fc.size();
  for (std::size_t i = 0; !differs && i < fa.size(); ++i) differs = fa[i].at != fc[i].at;
  CHECK(differs);
}

TEST_CASE("Failures.Rates.time_order_and_each_host_fails_again_only_after_its_repair") {
  auto cat = small_catalog();
  cluster::Topology topo(hetero_cluster(), cat);
  auto src = sim::make_rate_failures(rates(50, 0.7, 0, 3), topo, 1);
  auto fs = draw(*src, sec(3600.0 * 5000));
  REQUIRE(fs.size() > 100);
  std::map<cluster::HostId, engine::Time> last;
  for (std::size_t i = 0; i < fs.size(); ++i) {
    if (i) CHECK(fs[i].at >= fs[i - 1].at);
    CHECK(fs[i].gpu == sim::kWholeHost);
    CHECK(fs[i].down_for == sec(3 * 3600));
    if (auto it = last.find(fs[i].host); it != last.end()) CHECK(fs[i].at >= it->second + sec(3 * 3600));
    last[fs[i].host] = fs[i].at;
  }
}

TEST_CASE("Failures.Rates.mean_time_between_failures_matches_for_exponential_and_weibull") {
  // 1000 hosts; the mean up time between a host's failures should be host_mtbf_h (within 3%
  // over ~20,000 draws; the standard error is ~1% for shape 1 and ~1.5% for shape 0.7).
  auto cat = small_catalog();
  cluster::Topology topo(uniform_cluster(10, 100, 1), cat);
  for (double shape : {1.0, 0.7, 2.0}) {
    CAPTURE(shape);
    const double repair_h = 1;
    auto src = sim::make_rate_failures(rates(10, shape, 0, repair_h), topo, 3);
    // The first 20 up times of every host: a horizon would cut long gaps off (censoring).
    auto fs = draw(*src, sec(3600.0 * 600));
    std::map<cluster::HostId, std::pair<engine::Time, int>> prev;  // last failure, gaps counted
    double sum = 0;
    std::uint64_t n = 0;
    for (const auto& f : fs) {
      auto& [last, count] = prev.try_emplace(f.host, -1, 0).first->second;
      if (count < 20) {
        const engine::Time from = last < 0 ? 0 : last + sec(repair_h * 3600);
        sum += static_cast<double>(f.at - from);
        ++n;
        ++count;
      }
      last = f.at;
    }
    CHECK(n == 20000);
    CHECK(sum / static_cast<double>(n) / kHour == doctest::Approx(10).epsilon(0.03));
  }
}

TEST_CASE("Failures.Rates.gpu_failures_follow_the_rate_and_pick_gpus_uniformly") {
  // hetero_cluster: 34 GPUs; hosts have 4, 4, 2, 8, 8, 4, 4 GPUs. At 1e-2 failures per
  // GPU-hour over 10,000 hours: 34 x 1e-2 x 1e4 = 3,400 failures expected (sd ~58).
  auto cat = small_catalog();
  cluster::Topology topo(hetero_cluster(), cat);
  auto src = sim::make_rate_failures(rates(0, 1, 1e-2, 0.5), topo, 11);
  auto fs = draw(*src, sec(3600.0 * 1e4));
  CHECK(static_cast<double>(fs.size()) == doctest::Approx(3400).epsilon(0.06));
  std::vector<double> per_host(topo.hosts().size(), 0);
  for (const auto& f : fs) {
    REQUIRE(f.gpu < topo.host(f.host).gpus);
    per_host[f.host] += 1;
  }
  // Each host's share is its share of the GPUs (within 20%: the 2-GPU host expects 200).
  for (cluster::HostId h = 0; h < topo.hosts().size(); ++h) {
    CAPTURE(h);
    const double expected = static_cast<double>(fs.size()) * topo.host(h).gpus / 34.0;
    CHECK(per_host[h] == doctest::Approx(expected).epsilon(0.2));
  }
}

// --- the failure trace ---------------------------------------------------------------------

TEST_CASE("Failures.Trace.rows_by_host_number_or_rack_position_with_optional_gpu") {
  // hetero_cluster racks: v100 (h0-h2), a100 (h3-h4), h (h5-h6).
  auto cat = small_catalog();
  cluster::Topology topo(hetero_cluster(), cat);
  const auto path = temp_file("trace_ok.csv",
                              "# a comment\n"
                              "time_s,host,down_s,gpu\n"
                              "10,h4,60,\n"
                              "10,a100/0,30,7\n"
                              "\n"
                              "25.5,h/1,1,\n");
  auto src = sim::open_failure_trace(path, topo);
  auto fs = draw(*src, engine::kTimeMax);
  REQUIRE(fs.size() == 3);
  CHECK(fs[0].at == sec(10));
  CHECK(fs[0].host == 4);
  CHECK(fs[0].gpu == sim::kWholeHost);
  CHECK(fs[0].down_for == sec(60));
  CHECK(fs[1].host == 3);
  CHECK(fs[1].gpu == 7);
  CHECK(fs[2].host == 6);
  CHECK(fs[2].at == sec(25.5));
  CHECK(sim::check_failure_trace(path, topo) == 3);
}

TEST_CASE("Failures.Trace.bad_rows_are_located") {
  auto cat = small_catalog();
  cluster::Topology topo(hetero_cluster(), cat);
  struct Case {
    const char* name;
    const char* text;
    const char* starts;  // after "<path>:"
    const char* has;
  };
  const Case cases[] = {
      {"unknown_host", "time_s,host,down_s\n5,h2,10\n6,h77,10\n", "3: host: unknown host 'h77'", "valid: h0..h6, or <rack>/<k>"},
      {"unknown_rack", "time_s,host,down_s\n5,a10/0,10\n", "2: host: unknown host 'a10/0'", "did you mean 'a100/0'"},
      {"host_past_rack", "time_s,host,down_s\n5,a100/2,10\n", "2: host: unknown host 'a100/2'", "racks v100 (3 hosts)"},
      {"time_decreases", "time_s,host,down_s\n5,h1,10\n4,h1,10\n", "3: time_s: 4 s is before the previous row's 5 s",
       "sort the file by time_s"},
      {"negative_time", "time_s,host,down_s\n-1,h1,10\n", "2: time_s: -1 s is out of range", ""},
      {"zero_down", "time_s,host,down_s\n1,h1,0\n", "2: down_s: 0 is out of range (0", ""},
      {"gpu_past_host", "time_s,host,down_s,gpu\n1,h2,5,2\n", "2: gpu: 2 is out of range [0, 1]", ""},
      {"not_a_number", "time_s,host,down_s\nsoon,h1,5\n", "2: time_s: ", ""},
      {"missing_column", "time_s,host\n", "1: down_s: required column is missing", ""},
      {"unknown_column", "time_s,host,down,gpu\n", "1: down: unknown column 'down'", "did you mean 'down_s'"},
      {"short_row", "time_s,host,down_s\n1,h1\n", "2: expected 3 fields, found 2", ""},
  };
  for (const auto& c : cases) {
    const std::string name = c.name;
    CAPTURE(name);
    const auto path = temp_file("trace_" + name + ".csv", c.text);
    const auto msg = error_of([&] { sim::check_failure_trace(path, topo); });
    CAPTURE(msg);
    CHECK(msg.starts_with(path + ":" + c.starts));
    CHECK(msg.find(c.has) != std::string::npos);
  }
}

// --- hand-worked runs ----------------------------------------------------------------------

TEST_CASE("Failures.Sim.retries_exhausted_ends_the_job_as_failed_and_frees_its_gpus") {
  // Two hosts of 4 GPUs. Job 0 (4 GPUs, 1000 s) on h0, job 1 (4 GPUs, 2000 s) on h1, job 2
  // (3 GPUs, 100 s, submitted at 10) waits. GPU 0 of h0 fails at 700 (down 50 s): it holds job
  // 0's task. max_retries 0: job 0 ends as failed at 700; its GPUs are freed at once, so job 2
  // starts at 700 on h0's 3 working GPUs and ends at 800. Job 1 is untouched: ends 2000.
  LifeRun run(uniform_cluster(1, 2, 4), {{JobRow(0, 1000, 1, 4)}, {JobRow(0, 2000, 1, 4)}, {JobRow(10, 100, 1, 3)}},
              lifecycle(300, 0, 20, /*max_retries=*/0), "time_s,host,down_s,gpu\n700,h0,50,0\n");
  CHECK(run.observer.job(0).done == 0);
  CHECK(run.last(0).step == metrics::LifeStep::fail);
  CHECK(run.last(0).now == sec(700));
  CHECK(run.last(0).life.state == sched::JobState::failed);
  CHECK(run.last(0).life.failures == 1);
  CHECK(run.starts_s(2) == std::vector<double>{700});
  CHECK(run.observer.job(2).placements[0].tasks[0].host == 0);
  CHECK(run.end_s(2) == doctest::Approx(800));
  CHECK(run.end_s(1) == doctest::Approx(2000));
  CHECK(run.steps(1) == std::vector<metrics::LifeStep>{metrics::LifeStep::start, metrics::LifeStep::finish});
  CHECK(run.observer.held_at_end() == 0);
  CHECK(run.observer.violations() == 0);
}

TEST_CASE("Failures.Sim.one_retry_then_failed_on_the_second_failure") {
  // One host of 4 GPUs, continuous checkpoints (nothing lost), max_retries 1. Failures at 100
  // (down 10) and 300 (down 10): stopped at 100, restarted at 110 after the repair, stopped again
  // at 300 -> 2 failures > 1 retry: failed at 300 with 100 + 190 = 290 s of work saved.
  LifeRun run(uniform_cluster(1, 1, 4), {{JobRow(0, 1000, 1, 4)}}, lifecycle(0, 0, 0, /*max_retries=*/1),
              "time_s,host,down_s\n100,h0,10\n300,h0,10\n");
  CHECK(run.starts_s(0) == std::vector<double>{0, 110});
  CHECK(run.steps(0) == std::vector<metrics::LifeStep>{metrics::LifeStep::start, metrics::LifeStep::stop,
                                                       metrics::LifeStep::restart, metrics::LifeStep::stop,
                                                       metrics::LifeStep::fail});
  CHECK(run.last(0).now == sec(300));
  CHECK(run.last(0).life.work_done == doctest::Approx(290e6));
  CHECK(run.observer.job(0).done == 0);
}

TEST_CASE("Failures.Sim.a_gpu_failure_hits_only_the_job_on_that_gpu") {
  // One host, four 1-GPU jobs of 1000 s started at 0 in order (GPU indexes 0-3 in start order).
  // GPU 2 fails at 500 for 100 s: job 2 alone stops; with no checkpoint settings nothing is lost;
  // the other three GPUs are busy, so job 2 restarts when its GPU is repaired at 600: ends 1100.
  LifeRun run(uniform_cluster(1, 1, 4),
              {{JobRow(0, 1000, 1, 1)}, {JobRow(0, 1000, 1, 1)}, {JobRow(0, 1000, 1, 1)}, {JobRow(0, 1000, 1, 1)}},
              sim::LifecycleConfig{}, "time_s,host,down_s,gpu\n500,h0,100,2\n");
  for (workload::JobId j : {0u, 1u, 3u}) {
    CAPTURE(j);
    CHECK(run.end_s(j) == doctest::Approx(1000));
    CHECK(run.starts_s(j).size() == 1);
  }
  CHECK(run.starts_s(2) == std::vector<double>{0, 600});
  CHECK(run.end_s(2) == doctest::Approx(1100));
  CHECK(run.last(2).life.failures == 1);
}

TEST_CASE("Failures.Sim.down_gpus_come_back_after_repair") {
  // A whole-host failure of h1 (idle) at 100 for 50 s, then GPU 3 of h0 at 120 for 100 s.
  // A 1000 s job on h0's GPU 0 keeps instants coming. Down GPUs: 4 from 100, 5 from 120,
  // 1 from 150, 0 from 220.
  LifeRun run(uniform_cluster(1, 2, 4), {{JobRow(0, 1000, 1, 1)}}, sim::LifecycleConfig{},
              "time_s,host,down_s,gpu\n100,h1,50,\n120,h0,100,3\n");
  const auto& d = run.recorder.down_gpus;
  CHECK(d.at(sec(100)) == 4);
  CHECK(d.at(sec(120)) == 5);
  CHECK(d.at(sec(150)) == 1);
  CHECK(d.at(sec(220)) == 0);
  CHECK(run.end_s(0) == doctest::Approx(1000));  // GPU 3 was free: the job is untouched
}

// --- a whole scenario: determinism ---------------------------------------------------------

TEST_CASE("Failures.Scenario.same_seed_same_results_other_seed_other_failures") {
  // The workload is a fixed trace (generated once with seed 1), so that only the failures
  // change with the scenario's seed.
  workload::GeneratorConfig g;
  g.jobs = 60;
  g.arrival_rate_per_hour = 30;
  g.duration_median_s = 3600;
  g.gpu_sizes = {1, 2, 4};
  g.gpu_size_weights = {1, 1, 1};
  g.gpus_per_host = 4;
  auto gen = workload::make_generator(g, 1);
  std::ostringstream trace;
  workload::write_native_header(trace);
  workload::JobSpec j;
  while (gen->next(j)) workload::write_native_row(trace, j, gen->strings());
  const auto trace_path = temp_file("failing_jobs.csv", trace.str());
  const std::string root = SCHEDLAB_SOURCE_DIR;
  const auto scenario = temp_file("failing.yaml",
                                  "name: failing\n"
                                  "cluster: " + root + "/tests/fixtures/clusters/tiny.yaml\n"
                                  "workload: {trace: " + trace_path + "}\n"
                                  "checkpoint: {interval_s: 600, save_s: 30, restore_s: 60}\n"
                                  "failures: {host_mtbf_h: 2, repair_h: 0.5, gpu_failures_per_gpu_h: 0.05}\n");
  auto jobs_csv = [&](std::uint64_t seed, const std::string& out) {
    auto sc = config::load_scenario(scenario, {}, seed);
    util::Notices notices;
    auto outcome = run::run_scenario(sc, notices, out, true);
    std::ifstream in(out + "/jobs.csv");
    std::stringstream s;
    s << in.rdbuf();
    return std::make_pair(s.str(), outcome.stats.failures);
  };
  const auto dir = std::filesystem::temp_directory_path() / "schedlab_lifecycle_tests";
  const auto a = jobs_csv(4, (dir / "run_a").string());
  const auto b = jobs_csv(4, (dir / "run_b").string());
  const auto c = jobs_csv(5, (dir / "run_c").string());
  CHECK(a.second > 0);
  CHECK(a.first == b.first);
  CHECK(a.second == b.second);
  CHECK(a.first != c.first);
}
