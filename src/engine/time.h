// Simulated time: an integer count of microseconds, so that event order never depends on
// floating-point rounding. Traces in seconds are converted once, when read.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace schedlab::engine {

using Time = std::int64_t;  // microseconds since the start of the trace

inline constexpr Time kMicrosPerSecond = 1'000'000;
inline constexpr Time kTimeMax = std::numeric_limits<Time>::max();

// Rounds to the nearest microsecond; used only at input boundaries.
inline Time from_seconds(double s) { return static_cast<Time>(std::llround(s * 1e6)); }
inline double to_seconds(Time t) { return static_cast<double>(t) / 1e6; }

}  // namespace schedlab::engine

namespace schedlab::engine {

// Exact decimal seconds of a time ("12.000345"), formatted from the integer: fast, and the
// same digits on every platform.
inline void append_seconds(std::string& out, Time t) {
  if (t < 0) {
    out += '-';
    t = -t;
  }
  out += std::to_string(t / kMicrosPerSecond);
  out += '.';
  char frac[7];
  Time f = t % kMicrosPerSecond;
  for (int i = 5; i >= 0; --i, f /= 10) frac[i] = static_cast<char>('0' + f % 10);
  out.append(frac, 6);
}

inline std::string seconds_text(Time t) {
  std::string s;
  append_seconds(s, t);
  return s;
}

}  // namespace schedlab::engine
