// Simulated time at its edges: conversions and formatting saturate instead of overflowing.
#include <doctest/doctest.h>

#include <limits>

#include "engine/time.h"

using namespace schedlab;

// A seconds value beyond the clock saturates (it is checked before, at input); the formatter
// handles INT64_MIN, whose negation overflowed (R14).
TEST_CASE("Engine.Time.saturates_at_the_edges") {
  CHECK(engine::from_seconds(1e13) == engine::kTimeMax);
  CHECK(engine::from_seconds(-1e300) == std::numeric_limits<engine::Time>::min());
  CHECK(engine::from_seconds(std::numeric_limits<double>::quiet_NaN()) == 0);
  CHECK(engine::from_seconds(1.5) == 1'500'000);
  CHECK(engine::seconds_text(std::numeric_limits<engine::Time>::min()) == "-9223372036854.775808");
  CHECK(engine::seconds_text(engine::kTimeMax) == "9223372036854.775807");
  CHECK(engine::seconds_text(-1'500'000) == "-1.500000");
}
