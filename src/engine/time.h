// Simulated time: an integer count of microseconds, so that event order never depends on
// floating-point rounding. Traces in seconds are converted once, when read.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

namespace schedlab::engine {

using Time = std::int64_t;  // microseconds since the start of the trace

inline constexpr Time kMicrosPerSecond = 1'000'000;
inline constexpr Time kTimeMax = std::numeric_limits<Time>::max();

// Rounds to the nearest microsecond; used only at input boundaries, after the value was
// checked (util/checked.h). Out of range it saturates (NaN gives 0) rather than being
// undefined, so that a number that slipped past a check cannot wrap to a negative time.
inline Time from_seconds(double s) {
  const double us = std::round(s * 1e6);
  if (std::isnan(us)) return 0;
  if (us >= 9.2e18) return kTimeMax;
  if (us <= -9.2e18) return std::numeric_limits<Time>::min();
  return static_cast<Time>(us);
}
inline double to_seconds(Time t) { return static_cast<double>(t) / 1e6; }

// A count of microseconds computed in floating point (an estimate less the work done, say),
// saturated like from_seconds: a service's "forever" is kTimeMax, which a double rounds up
// past the largest Time.
inline Time from_micros(double us) {
  if (std::isnan(us)) return 0;
  if (us >= 9.2e18) return kTimeMax;
  if (us <= -9.2e18) return std::numeric_limits<Time>::min();
  return static_cast<Time>(us);
}

// a + b, held at the ends of the range instead of wrapping: "now + forever" stays forever.
inline Time add_saturating(Time a, Time b) {
  Time sum;
  if (__builtin_add_overflow(a, b, &sum)) return b > 0 ? kTimeMax : std::numeric_limits<Time>::min();
  return sum;
}

}  // namespace schedlab::engine

namespace schedlab::engine {

// Exact decimal seconds of a time ("12.000345"), formatted from the integer: fast, and the
// same digits on every platform. put_seconds writes them at `p` (at most kSecondsTextMax
// characters) and returns the end: results files write seven a job through one row pointer.
inline constexpr std::size_t kSecondsTextMax = 28;  // '-', 20 digits, '.', 6 digits

inline char* put_seconds(char* p, Time t) {
  // The magnitude as unsigned: negating INT64_MIN itself would overflow.
  std::uint64_t mag = static_cast<std::uint64_t>(t);
  if (t < 0) {
    *p++ = '-';
    mag = ~mag + 1;
  }
  constexpr auto kMicros = static_cast<std::uint64_t>(kMicrosPerSecond);
  p = std::to_chars(p, p + 20, mag / kMicros).ptr;  // at most 20 digits
  std::uint64_t f = mag % kMicros;
  if (f == 0) {  // whole seconds, the usual case (traces count in seconds)
    std::memcpy(p, ".000000", 7);
    return p + 7;
  }
  *p = '.';
  for (int i = 6; i >= 1; --i, f /= 10) p[i] = static_cast<char>('0' + f % 10);
  return p + 7;
}

inline void append_seconds(std::string& out, Time t) {
  char buf[kSecondsTextMax];
  out.append(buf, static_cast<std::size_t>(put_seconds(buf, t) - buf));
}

inline std::string seconds_text(Time t) {
  std::string s;
  append_seconds(s, t);
  return s;
}

}  // namespace schedlab::engine
