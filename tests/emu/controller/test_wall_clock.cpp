// The emulator's clock: trace time at `speedup` times the wall clock, woken early by arrivals.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "emu/controller/wall_clock.h"

namespace schedlab::emu {
namespace {

// Records what arrived from outside.
struct Outside final : sim::OutsideEvents {
  std::vector<std::pair<sim::RunId, engine::Time>> ended;
  void run_ended(sim::RunId run, engine::Time now) override { ended.emplace_back(run, now); }
  void run_failed(sim::RunId, cluster::HostId, engine::Time) override {}
  void host_lost(cluster::HostId, engine::Time) override {}
  void host_back(cluster::HostId, engine::Time) override {}
  workload::JobId submit(const sim::SubmittedJob&, engine::Time) override { return 0; }
  bool kill(workload::JobId, engine::Time) override { return false; }
  std::optional<sim::ServiceScaled> scale_service(const std::string&, std::uint32_t, engine::Time) override {
    return std::nullopt;
  }
  void inspect(sim::RunView&, std::size_t, bool) const override {}
};

double wall_ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("Emulation.WallClock.an_instant_is_handled_no_earlier_than_its_scaled_wall_time") {
  // Speedup 100: trace second 2 is due 20 ms of wall time after trace second 0.
  WallClock clock(100, [] { return false; });
  Outside outside;
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(clock.advance(0, outside) == 0);  // the first instant starts the clock
  CHECK(clock.advance(engine::from_seconds(2), outside) == engine::from_seconds(2));
  CHECK(wall_ms_since(t0) >= 19.9);
  REQUIRE(clock.lag_us().size() == 2);
  CHECK(clock.lag_us()[1] >= 0);
}

TEST_CASE("Emulation.WallClock.an_arrival_wakes_the_loop_early_at_the_scaled_now") {
  WallClock clock(100, [] { return true; });
  Outside outside;
  clock.advance(0, outside);
  // A task ends 50 ms (5 trace seconds) in, long before the next queued event (1000 s).
  std::thread reporter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    clock.post([](engine::Time now, sim::OutsideEvents& o) { o.run_ended(7, now); });
  });
  const engine::Time at = clock.advance(engine::from_seconds(1000), outside);
  reporter.join();
  REQUIRE(outside.ended.size() == 1);
  CHECK(outside.ended[0].first == 7);
  CHECK(outside.ended[0].second == at);
  CHECK(at >= engine::from_seconds(4.9));
  CHECK(at < engine::from_seconds(1000));
}

TEST_CASE("Emulation.WallClock.instants_never_go_backwards") {
  // An arrival posted while the loop is behind (its next event overdue) waits for that event:
  // it is delivered at the following instant, not before the one already due.
  WallClock clock(1e6, [] { return true; });
  Outside outside;
  clock.advance(0, outside);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // 5000 trace seconds pass
  clock.post([](engine::Time now, sim::OutsideEvents& o) { o.run_ended(1, now); });
  CHECK(clock.advance(engine::from_seconds(10), outside) == engine::from_seconds(10));
  CHECK(outside.ended.empty());
  const engine::Time at = clock.advance(engine::kTimeMax, outside);
  REQUIRE(outside.ended.size() == 1);
  CHECK(at >= engine::from_seconds(10));
}

TEST_CASE("Emulation.WallClock.with_nothing_queued_and_nothing_to_hear_the_loop_ends") {
  WallClock clock(100, [] { return false; });
  Outside outside;
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(clock.advance(engine::kTimeMax, outside) == engine::kTimeMax);
  CHECK(wall_ms_since(t0) < 1000);
}

}  // namespace schedlab::emu
