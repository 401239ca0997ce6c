// Simulated time: an integer count of microseconds, so that event order never depends on
// floating-point rounding. Traces in seconds are converted once, when read.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace schedlab::engine {

using Time = std::int64_t;  // microseconds since the start of the trace

inline constexpr Time kMicrosPerSecond = 1'000'000;
inline constexpr Time kTimeMax = std::numeric_limits<Time>::max();

// Rounds to the nearest microsecond; used only at input boundaries.
inline Time from_seconds(double s) { return static_cast<Time>(std::llround(s * 1e6)); }
inline double to_seconds(Time t) { return static_cast<double>(t) / 1e6; }

}  // namespace schedlab::engine
