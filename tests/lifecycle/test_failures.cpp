// Failure sources: the seeded rate model (renewal processes per host, a Poisson process of GPU
// failures) and the failure trace reader (lifecycle/failures.h), without a simulation.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>

#include "../sim/lifecycle_harness.h"
#include "lifecycle/failures.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

std::vector<lifecycle::FailureEvent> draw(lifecycle::FailureSource& src, engine::Time horizon) {
  std::vector<lifecycle::FailureEvent> out;
  lifecycle::FailureEvent f;
  while (src.next(f) && f.at <= horizon) out.push_back(f);
  return out;
}

lifecycle::FailureRates rates(double mtbf_h, double shape, double gpu_rate, double repair_h) {
  lifecycle::FailureRates r;
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
  auto a = lifecycle::make_rate_failures(r, topo, 7);
  auto b = lifecycle::make_rate_failures(r, topo, 7);
  auto c = lifecycle::make_rate_failures(r, topo, 8);
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
  auto src = lifecycle::make_rate_failures(rates(50, 0.7, 0, 3), topo, 1);
  auto fs = draw(*src, sec(3600.0 * 5000));
  REQUIRE(fs.size() > 100);
  std::map<cluster::HostId, engine::Time> last;
  for (std::size_t i = 0; i < fs.size(); ++i) {
    if (i) CHECK(fs[i].at >= fs[i - 1].at);
    CHECK(fs[i].gpu == lifecycle::kWholeHost);
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
    auto src = lifecycle::make_rate_failures(rates(10, shape, 0, repair_h), topo, 3);
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
  auto src = lifecycle::make_rate_failures(rates(0, 1, 1e-2, 0.5), topo, 11);
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
  auto src = lifecycle::open_failure_trace(path, topo);
  auto fs = draw(*src, engine::kTimeMax);
  REQUIRE(fs.size() == 3);
  CHECK(fs[0].at == sec(10));
  CHECK(fs[0].host == 4);
  CHECK(fs[0].gpu == lifecycle::kWholeHost);
  CHECK(fs[0].down_for == sec(60));
  CHECK(fs[1].host == 3);
  CHECK(fs[1].gpu == 7);
  CHECK(fs[2].host == 6);
  CHECK(fs[2].at == sec(25.5));
  CHECK(lifecycle::check_failure_trace(path, topo) == 3);
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
    const auto msg = error_of([&] { lifecycle::check_failure_trace(path, topo); });
    CAPTURE(msg);
    CHECK(msg.starts_with(path + ":" + c.starts));
    CHECK(msg.find(c.has) != std::string::npos);
  }
}
