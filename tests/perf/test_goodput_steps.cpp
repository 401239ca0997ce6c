// The step walk of a charged run (perf/goodput_steps.h): which step a job is in, how much work
// is left after some time and how long the rest takes, with factors constant per step. Cases
// worked by hand on a job of 100 units (one unit a step).
#include <doctest/doctest.h>

#include <vector>

#include "perf/goodput_steps.h"

using namespace schedlab::perf;

TEST_CASE("Perf.GoodputSteps.progress_step") {
  struct Case {
    double total, remaining;
    int step;
  };
  const std::vector<Case> cases = {
      {100, 100, 0},    // not started
      {100, 99.5, 0},   // inside the first percent
      {100, 99, 1},     // exactly on a boundary: the step that begins there
      {100, 0.5, 99},   // the last percent
      {100, 0, 99},     // done: the last step
      {100, 120, 0},    // more left than the whole (clamped)
      {0, 0, 0},        // no work: step 0
      {3e12, 3e12 * 0.37, 63},
  };
  for (const auto& c : cases) CHECK_MESSAGE(progress_step(c.total, c.remaining) == c.step, c.total, " ", c.remaining);
}

TEST_CASE("Perf.GoodputSteps.drain_and_time_by_hand") {
  // Factor 1 on even steps, 2 on odd ones; speed 1 unit per second.
  const StepProfile f(100, 100, [](int k) { return k % 2 ? 2.0 : 1.0; });
  // From the start: step 0 takes 1 s, step 1 0.5 s: after 1.25 s, 1.5 units done.
  CHECK(f.drain(100, 1, 1.25) == doctest::Approx(98.5));
  // 1.5 s finishes exactly two steps.
  CHECK(f.drain(100, 1, 1.5) == doctest::Approx(98));
  // 0.5 s: half of step 0.
  CHECK(f.drain(100, 1, 0.5) == doctest::Approx(99.5));
  // The whole job: 50 steps at 1 s, 50 at 0.5 s.
  CHECK(f.time_to_drain(100, 1) == doctest::Approx(75));
  // Mid-step start (0.5 units into step 3, factor 2): 0.25 s to its end, then 96 steps.
  CHECK(f.time_to_drain(96.5, 1) == doctest::Approx(0.25 + 48 * 1 + 48 * 0.5));
  // Speed scales time: double speed, half the time.
  CHECK(f.time_to_drain(100, 2) == doctest::Approx(37.5));
  // Draining past the end leaves nothing, never less; no time or nothing left: unchanged.
  CHECK(f.drain(3, 1, 1000) == 0);
  CHECK(f.drain(40, 1, 0) == 40);
  CHECK(f.time_to_drain(0, 1) == 0);
  // A constant factor is the plain rate.
  const StepProfile one(100, 40, [](int) { return 1.0; });
  CHECK(one.drain(40, 4, 2.5) == doctest::Approx(30));
  CHECK(one.time_to_drain(40, 4) == doctest::Approx(10));
}

TEST_CASE("Perf.GoodputSteps.asks_only_the_steps_left") {
  // A run that starts 37.5% into the job asks steps 37..99, each once.
  std::vector<int> asked;
  const StepProfile p(1000, 625, [&](int k) {
    asked.push_back(k);
    return 1.0;
  });
  REQUIRE(asked.size() == 63);
  CHECK(asked.front() == 99);
  CHECK(asked.back() == 37);
  CHECK(p.time_to_drain(625, 1) == doctest::Approx(625));
}

TEST_CASE("Perf.GoodputSteps.drain_agrees_with_time") {
  // Draining for the time the rest takes leaves nothing; for half of it, the half-way work
  // takes the other half; two drains in a row are one. Factors rising with progress, as the
  // noise scale does.
  for (double start : {100.0, 77.7, 12.5, 0.3}) {
    const StepProfile f(100, start, [](int k) { return 1.0 + k / 50.0; });
    const double t = f.time_to_drain(start, 3);
    CHECK(f.drain(start, 3, t) == doctest::Approx(0).epsilon(1e-9));
    const double mid = f.drain(start, 3, t / 2);
    CHECK(f.time_to_drain(mid, 3) == doctest::Approx(t / 2));
    CHECK(f.drain(f.drain(start, 3, t / 3), 3, t / 3) == doctest::Approx(f.drain(start, 3, 2 * t / 3)));
  }
}
