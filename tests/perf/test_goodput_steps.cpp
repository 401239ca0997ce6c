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
  const StepFactor f = [](int k) { return k % 2 ? 2.0 : 1.0; };
  // From the start: step 0 takes 1 s, step 1 0.5 s: after 1.25 s, 1.5 units done.
  CHECK(drain_steps(100, 100, 1, 1.25, f) == doctest::Approx(98.5));
  // 1.5 s finishes exactly two steps.
  CHECK(drain_steps(100, 100, 1, 1.5, f) == doctest::Approx(98));
  // The whole job: 50 steps at 1 s, 50 at 0.5 s.
  CHECK(time_to_drain(100, 100, 1, f) == doctest::Approx(75));
  // Mid-step start (0.5 units into step 3, factor 2): 0.25 s to its end, then 96 steps.
  CHECK(time_to_drain(100, 96.5, 1, f) == doctest::Approx(0.25 + 48 * 1 + 48 * 0.5));
  // Speed scales time: double speed, half the time.
  CHECK(time_to_drain(100, 100, 2, f) == doctest::Approx(37.5));
  // Draining past the end leaves nothing, never less.
  CHECK(drain_steps(100, 3, 1, 1000, f) == 0);
  // A constant factor is the plain rate.
  const StepFactor one = [](int) { return 1.0; };
  CHECK(drain_steps(100, 40, 4, 2.5, one) == doctest::Approx(30));
  CHECK(time_to_drain(100, 40, 4, one) == doctest::Approx(10));
}

TEST_CASE("Perf.GoodputSteps.drain_agrees_with_time") {
  // Draining for the time the rest takes leaves nothing; for half of it, the half-way work
  // takes the other half. Factors rising with progress, as the noise scale does.
  const StepFactor f = [](int k) { return 1.0 + k / 50.0; };
  for (double start : {100.0, 77.7, 12.5, 0.3}) {
    const double t = time_to_drain(1000.0 / 10, start, 3, f);
    CHECK(drain_steps(100, start, 3, t, f) == doctest::Approx(0).epsilon(1e-9));
    const double mid = drain_steps(100, start, 3, t / 2, f);
    CHECK(time_to_drain(100, mid, 3, f) == doctest::Approx(t / 2));
  }
}
