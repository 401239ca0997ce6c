// Chronos (Mesos cron) schedules: the ISO 8601 repeating interval `R[n]/<start>/<period>`
// read into a start instant, a calendar-aware period and a repeat count, for cron jobs in
// scenarios.
//
// What is accepted, and what it means:
//
// Repeat, `R` or `Rn` (n decimal digits, at most 2^64 - 1):
//   `R` repeats forever; `Rn` runs the job n times: occurrences k = 0 .. n-1, so `R0` never
//   runs, `R1` runs once, at the start. This is Chronos' rule: its API documentation says
//   "Rn to repeat n times, or R to repeat forever" (mesos/chronos docs/docs/api.md), and its
//   scheduler (jobs/Schedule.scala, JobScheduler.next) launches a schedule only while its
//   remaining recurrence count is above zero, counting down by one per launch.
//
// Start, `YYYY-MM-DDThh:mm:ss[.s][Z|±hh:mm|±hhmm]` or a date alone `YYYY-MM-DD`:
//   - four-digit year 1970-9999, month 01-12, day within its month (leap years by the
//     proleptic Gregorian rule), hour 00-23, minute 00-59, second 00-59 (no leap seconds:
//     time is Unix time, as in Chronos' documented format);
//   - a fraction of a second after `.` or `,`, 1 to 6 digits (microseconds are the finest
//     unit kept);
//   - a zone `Z` or a fixed offset ±hh:mm / ±hhmm (hours 00-23, minutes 00-59); no zone
//     means UTC. A date alone is midnight UTC.
//   - the instant must not be before 1970-01-01T00:00:00Z (so start_us >= 0).
//   Chronos also takes an empty start as "now"; a simulation needs a fixed instant, so an
//   empty start is an error here. Names of time zones (Chronos' scheduleTimeZone) are not
//   part of the schedule text and are not supported.
//
// Period, `PnYnMnWnDTnHnMnS`:
//   components in this order, each at most once, at least one of them; `T` is required
//   before hours, minutes and seconds (and must be followed by one); numbers are decimal
//   digits, never negative; only seconds may have a fraction (1 to 6 digits). Weeks are
//   folded into days (7 each) and hours, minutes and seconds into microseconds.
//   Years and months are calendar units, days are 24 hours (time is UTC, without daylight
//   saving). A period of a schedule must be longer than zero.
//
// Calendar arithmetic (add_duration_us, ChronosSchedule::occurrence): like Chronos (Joda-Time
// `origin.plus(period.multipliedBy(k))`), the k-th occurrence is computed from the start,
// never from the previous occurrence, and the units are added largest first, each clamping
// the day of month to the last day of the month it lands in:
//   years, then months, then days, then microseconds. So 2026-01-31 + P1M is 2026-02-28
//   (2028-02-29 in a leap year), and its next occurrence is 2026-03-31 (no drift to the 28th);
//   2024-02-29 + P1Y is 2025-02-28, + P4Y is 2028-02-29; 2024-02-29 + P1Y1M is 2025-03-28.
//   The calendar is the UTC one: a start written with an offset is stepped on its UTC date.
//   Chronos steps in the written offset instead; the two differ only when a month or year
//   step clamps the day and the offset puts the UTC date on another day than the written one.
//   Write starts in `Z` for monthly or yearly periods to rule this out.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace schedlab::workload {

// An ISO 8601 duration. Components may be negative when built by code (the parser never
// produces negative ones); add_duration_us handles either sign.
struct IsoDuration {
  std::int64_t years = 0, months = 0, days = 0;  // weeks folded into days
  std::int64_t micros = 0;                       // hours, minutes and seconds
  bool zero() const { return years == 0 && months == 0 && days == 0 && micros == 0; }
};

struct ChronosSchedule {
  std::optional<std::uint64_t> repeats;  // nullopt: unbounded (`R`)
  std::int64_t start_us = 0;             // microseconds since 1970-01-01T00:00:00Z
  IsoDuration period;

  // The k-th occurrence (k = 0 is start_us), in microseconds since the Unix epoch; computed
  // from the start each time (no drift with calendar units). Defined for every k, also past
  // count(): whether the k-th occurrence runs is count()'s business. Throws
  // std::overflow_error when the instant is beyond what 64-bit microseconds can hold.
  std::int64_t occurrence(std::uint64_t k) const;
  // Number of occurrences in total; nullopt when unbounded.
  std::optional<std::uint64_t> count() const;
};

// The parsers throw std::invalid_argument with a one-line message that names the part,
// quotes its text and says what is wrong, e.g.
//   "period 'PT6': a number needs a unit (H, M or S) after 'PT6'"
//   "start '2026-02-30T00:00:00Z': day 30 is not in February 2026"
// Within a schedule the parts are called `repeat`, `start` and `period`; the stand-alone
// parsers call their text `date-time` and `duration`.
ChronosSchedule parse_chronos_schedule(std::string_view text);
// Microseconds since the Unix epoch.
std::int64_t parse_iso_datetime_us(std::string_view text);
// Any duration, zero included (a schedule refuses a zero period itself).
IsoDuration parse_iso_duration(std::string_view text);

// at + times * d, calendar-aware (see above; `times` multiplies each component before it is
// added). Throws std::overflow_error when a product, the date or the result does not fit.
std::int64_t add_duration_us(std::int64_t at_us, const IsoDuration& d, std::uint64_t times);

}  // namespace schedlab::workload
