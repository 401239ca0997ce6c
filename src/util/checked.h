// The one checked conversion for numbers from outside (traces, scenarios, clusters,
// catalogs, profiles, logs, --set): every parsed number that lands in a narrower type, or
// that must make sense (a time, a count, a share, a speed), passes through here, so that a
// value out of range is a located error naming its limit rather than a silent wrap, a 0-GPU
// job or a crash. Time arithmetic saturates instead of overflowing.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <charconv>
#include <concepts>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "engine/time.h"
#include "util/error.h"
#include "util/parse.h"

namespace schedlab::util {

// Sense limits shared by every reader. Times beyond ±100 years (in microseconds) are not
// a trace's meaning but a broken number; counts stay within 32 bits.
inline constexpr engine::Time kMaxInputTime = engine::Time{100} * 365 * 24 * 3600 * engine::kMicrosPerSecond;
inline constexpr double kMaxInputSeconds = 100.0 * 365 * 24 * 3600;

[[noreturn]] inline void throw_out_of_range(const FieldContext& where, const std::string& what) {
  throw InputError(where.file, where.line, std::string(where.column), what);
}

// An integer into `To`, within [lo, hi] (by default To's whole range).
template <std::integral To>
To checked_int(std::int64_t v, const FieldContext& where, To lo = std::numeric_limits<To>::min(),
               To hi = std::numeric_limits<To>::max()) {
  // Compare in the wider signed domain; unsigned 64-bit limits above INT64_MAX never bind.
  const bool below = std::cmp_less(v, lo);
  const bool above = std::cmp_greater(v, hi);
  if (below || above) throw_out_of_range(where, fmt::format("{} is out of range [{}, {}]", v, lo, hi));
  return static_cast<To>(v);
}

// A floating-point value that must be a whole number (e.g. "3613033.0") into `To`.
template <std::integral To>
To checked_int(double v, const FieldContext& where, To lo = std::numeric_limits<To>::min(),
               To hi = std::numeric_limits<To>::max()) {
  if (!std::isfinite(v)) throw_out_of_range(where, fmt::format("{} is not a finite number", v));
  if (v != std::trunc(v)) throw_out_of_range(where, fmt::format("{} is not a whole number", v));
  if (v < static_cast<double>(lo) || v > static_cast<double>(hi))
    throw_out_of_range(where, fmt::format("{} is out of range [{}, {}]", v, lo, hi));
  return static_cast<To>(v);
}

// A count that must be at least 1 and fit in 32 bits (tasks, GPUs, hosts, racks).
inline std::uint32_t checked_count(std::int64_t v, const FieldContext& where,
                                   std::uint32_t hi = std::numeric_limits<std::uint32_t>::max()) {
  return checked_int<std::uint32_t>(v, where, 1, hi);
}

// A finite value within [lo, hi]; `lo_open` excludes lo itself (speeds, bandwidths > 0).
inline double checked_real(double v, const FieldContext& where, double lo, double hi, bool lo_open = false) {
  if (!std::isfinite(v)) throw_out_of_range(where, fmt::format("{} is not a finite number", v));
  const bool above_lo = lo_open ? v > lo : v >= lo;
  if (!above_lo || v > hi)
    throw_out_of_range(where, fmt::format("{} is out of range {}{}, {}]", v, lo_open ? "(" : "[", lo, hi));
  return v;
}

// A finite, strictly positive value no larger than `hi` (speeds, bandwidths, rates).
inline double checked_positive(double v, const FieldContext& where,
                               double hi = std::numeric_limits<double>::max()) {
  return checked_real(v, where, 0.0, hi, /*lo_open=*/true);
}

// Seconds (a point in time or a duration) to microseconds, within ±100 years.
inline engine::Time checked_seconds(double s, const FieldContext& where, double min_s = -kMaxInputSeconds) {
  if (!std::isfinite(s)) throw_out_of_range(where, fmt::format("{} is not a finite number of seconds", s));
  if (s < min_s || s > kMaxInputSeconds)
    throw_out_of_range(where, fmt::format("{} s is out of range [{}, {}] (100 years)", s, min_s, kMaxInputSeconds));
  return engine::from_seconds(s);
}

// A duration in seconds: 0 to 100 years.
inline engine::Time checked_duration_seconds(double s, const FieldContext& where) {
  return checked_seconds(s, where, 0.0);
}

// A GPU share in thousandths: (0, 1000].
inline std::uint16_t checked_share_milli(std::int64_t milli, const FieldContext& where) {
  return checked_int<std::uint16_t>(milli, where, 1, 1000);
}

// A number written as text (a YAML scalar, a command-line value) into `To` within [lo, hi]:
// the one conversion for both, so that `--seed -1` and `seed: -1` get the same answer. An
// unsigned type takes no sign (no wrap of -1 to 2^64-1); an integer type takes only a whole
// number; a floating type only a finite value.
template <class To>
  requires std::is_arithmetic_v<To>
To checked_number(std::string_view text, const FieldContext& where, To lo = std::numeric_limits<To>::lowest(),
                  To hi = std::numeric_limits<To>::max()) {
  const std::string_view t = trim(text);
  if constexpr (std::is_floating_point_v<To>) {
    double v;
    if (!try_parse_double(t, v))
      throw_out_of_range(where, t.empty() ? std::string("missing value") : fmt::format("expected a number, got '{}'", t));
    return static_cast<To>(checked_real(v, where, static_cast<double>(lo), static_cast<double>(hi)));
  } else if constexpr (std::is_unsigned_v<To>) {
    std::uint64_t v = 0;
    const std::string_view digits = !t.empty() && t.front() == '+' ? t.substr(1) : t;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (digits.empty() || p != digits.data() + digits.size() || (ec != std::errc() && ec != std::errc::result_out_of_range))
      throw_out_of_range(where, t.empty() ? std::string("missing value")
                                          : fmt::format("expected a whole number from {} to {}, got '{}'", lo, hi, t));
    if (ec == std::errc::result_out_of_range || v < lo || v > hi)
      throw_out_of_range(where, fmt::format("{} is out of range [{}, {}]", t, lo, hi));
    return static_cast<To>(v);
  } else {
    std::int64_t v = 0;
    if (!try_parse_int(t, v)) {
      double d;
      if (try_parse_double(t, d) && d == std::trunc(d) && std::abs(d) >= 9.2e18)
        throw_out_of_range(where, fmt::format("{} is out of range [{}, {}]", t, lo, hi));
      throw_out_of_range(where, t.empty() ? std::string("missing value")
                                          : fmt::format("expected a whole number from {} to {}, got '{}'", lo, hi, t));
    }
    return checked_int<To>(v, where, lo, hi);
  }
}

// Saturating time arithmetic: a far-future end stays at kTimeMax instead of wrapping.
inline engine::Time add_time(engine::Time a, engine::Time b) {
  engine::Time r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? engine::kTimeMax : std::numeric_limits<engine::Time>::min();
  return r;
}
inline engine::Time sub_time(engine::Time a, engine::Time b) {
  engine::Time r;
  if (__builtin_sub_overflow(a, b, &r)) return b < 0 ? engine::kTimeMax : std::numeric_limits<engine::Time>::min();
  return r;
}
inline engine::Time mul_time(engine::Time a, std::int64_t k) {
  engine::Time r;
  if (__builtin_mul_overflow(a, k, &r)) return (a < 0) != (k < 0) ? std::numeric_limits<engine::Time>::min() : engine::kTimeMax;
  return r;
}

// Microseconds from a floating-point amount that may be huge (e.g. work / speed): clamped to
// [0, kTimeMax] instead of the undefined cast of an out-of-range double.
inline engine::Time time_from_double_clamped(double us) {
  if (!(us > 0)) return 0;  // NaN and negatives
  if (us >= 9.2e18) return engine::kTimeMax;
  return static_cast<engine::Time>(us);
}

}  // namespace schedlab::util
