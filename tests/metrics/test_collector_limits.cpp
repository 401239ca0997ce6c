// The timeline's row limit: a fine interval over a long run is coarsened, never unbounded (R03,
// R13), and the coarsened rows keep the utilization integral.
#include <doctest/doctest.h>

#include "../support/sim_harness.h"
#include "metrics/collector.h"

using namespace schedlab;
using namespace schedlab::metrics;
using namespace schedlab::testing;

namespace {
InstantState state(engine::Time now, std::uint64_t used_milli, std::uint64_t free) {
  InstantState s;
  s.now = now;
  s.used_milli = used_milli;
  s.free_gpus = free;
  return s;
}

double row_integral_gpu_seconds(const Collector& c) {
  double sum = 0;
  for (const auto& r : c.timeline()) sum += r.used_gpus * static_cast<double>(r.end - r.start) / 1e6;
  return sum;
}
}  // namespace

TEST_CASE("Metrics.Collector.timeline_rows_are_bounded") {
  auto catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 2, 4), catalog);
  struct Case {
    engine::Time interval;
    engine::Time end;
  };
  const Case cases[] = {
      {1, sec(1e6)},              // R13: the finest interval over 11.6 days: 10^12 rows asked
      {sec(600), sec(1e12)},      // R03: a far-future end at a normal interval
      {1, engine::kTimeMax - 1},  // the whole clock
  };
  for (const auto& c : cases) {
    CAPTURE(c.end);
    Collector col(topo, c.interval);
    col.on_instant(state(0, 2000, 6));
    col.on_instant(state(c.end / 2, 4000, 4));
    col.on_instant(state(c.end, 0, 8));
    col.on_finish(c.end);
    CHECK(col.timeline().size() <= kMaxTimelineRows);
    CHECK(col.timeline().size() > kMaxTimelineRows / 4);  // coarsened no more than needed
    CHECK(col.timeline_interval() > c.interval);
    CHECK(col.requested_interval() == c.interval);
    CHECK(col.timeline().front().start == 0);
    CHECK(col.timeline().back().end == c.end);
    for (std::size_t i = 1; i < col.timeline().size(); ++i)
      REQUIRE(col.timeline()[i].start == col.timeline()[i - 1].end);
    // 2 GPUs for the first half, 4 for the second: the rows keep the integral.
    const double expect = (2.0 * static_cast<double>(c.end / 2) + 4.0 * static_cast<double>(c.end - c.end / 2)) / 1e6;
    CHECK(col.integral_gpu_seconds() == doctest::Approx(expect).epsilon(1e-9));
    CHECK(row_integral_gpu_seconds(col) == doctest::Approx(expect).epsilon(1e-6));
  }
}

TEST_CASE("Metrics.Collector.short_runs_keep_their_interval") {
  auto catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 2, 4), catalog);
  Collector col(topo, sec(10));
  col.on_instant(state(0, 1000, 7));
  col.on_finish(sec(25));
  CHECK(col.timeline_interval() == sec(10));
  CHECK(col.timeline().size() == 3);
}
