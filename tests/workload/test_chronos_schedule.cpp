// Chronos schedules (workload/chronos_schedule.h): R[n]/start/period read into a repeat
// count, a start instant and a calendar-aware period; occurrences computed from the start;
// every kind of bad text refused with a message that says where and what.
#include <doctest/doctest.h>

#include <limits>
#include <stdexcept>
#include <string>

#include "workload/chronos_schedule.h"

using namespace schedlab::workload;

namespace {
constexpr std::int64_t kSecond = 1'000'000;
constexpr std::int64_t kHour = 3'600 * kSecond;
constexpr std::int64_t kDay = 24 * kHour;

// Days from 1970-01-01 to 2026-01-01: 56 years of 365 days and 14 leap days (1972 .. 2024).
constexpr std::int64_t kDays2026 = 56 * 365 + 14;  // 20454
// 2026-01-05T02:00:00Z
constexpr std::int64_t kJan5At2 = (kDays2026 + 4) * kDay + 2 * kHour;  // 1767578400 s

std::int64_t at(const char* text) { return parse_iso_datetime_us(text); }
}  // namespace

TEST_CASE("Workload.ChronosSchedule.date_times_are_microseconds_since_the_epoch") {
  CHECK(at("1970-01-01T00:00:00Z") == 0);
  CHECK(at("1970-01-02") == kDay);
  CHECK(at("2026-01-05T02:00:00Z") == kJan5At2);
  CHECK(at("2026-01-05T02:00:00") == kJan5At2);     // no zone: UTC
  CHECK(at("2026-01-05") == kJan5At2 - 2 * kHour);  // a date alone: midnight UTC
  // Offsets: local time minus UTC.
  CHECK(at("2026-01-05T03:00:00+01:00") == kJan5At2);
  CHECK(at("2026-01-05T03:00:00+0100") == kJan5At2);
  CHECK(at("2026-01-04T21:30:00-04:30") == kJan5At2);
  CHECK(at("2026-01-05T02:00:00-00:00") == kJan5At2);
  // Fractions of a second, with '.' or ',', down to the microsecond.
  CHECK(at("2026-01-05T02:00:00.5Z") == kJan5At2 + 500'000);
  CHECK(at("2026-01-05T02:00:00,25Z") == kJan5At2 + 250'000);
  CHECK(at("2026-01-05T02:00:00.000001+00:00") == kJan5At2 + 1);
  CHECK(at("2026-01-05T02:00:00.123456") == kJan5At2 + 123'456);
  // Leap years: every 4th, not every 100th, but every 400th.
  // 2024-01-01 is day 54 * 365 + 13 = 19723; February 29 is 31 + 28 days later.
  CHECK(at("2024-02-29") == (19723 + 59) * kDay);
  CHECK(at("2000-02-29T00:00:00Z") == at("2000-03-01T00:00:00Z") - kDay);
  CHECK(at("9999-12-31T23:59:59.999999Z") == 253'402'300'799'999'999);  // the last instant accepted
}

TEST_CASE("Workload.ChronosSchedule.durations_fold_weeks_into_days_and_time_into_microseconds") {
  const IsoDuration all = parse_iso_duration("P1Y2M3DT4H5M6.5S");
  CHECK(all.years == 1);
  CHECK(all.months == 2);
  CHECK(all.days == 3);
  CHECK(all.micros == 4 * kHour + 5 * 60 * kSecond + 6 * kSecond + 500'000);
  CHECK(parse_iso_duration("P1W").days == 7);
  CHECK(parse_iso_duration("P2W3D").days == 17);
  CHECK(parse_iso_duration("P10M").months == 10);                  // months before T,
  CHECK(parse_iso_duration("PT10M").micros == 10 * 60 * kSecond);  // minutes after it
  CHECK(parse_iso_duration("PT36H").micros == 36 * kHour);         // no carrying into days
  CHECK(parse_iso_duration("PT0,000001S").micros == 1);
  CHECK(parse_iso_duration("PT6H").days == 0);
  // A duration may be zero (a schedule's period may not).
  CHECK(parse_iso_duration("P0D").zero());
  CHECK_FALSE(parse_iso_duration("PT0.000001S").zero());
}

TEST_CASE("Workload.ChronosSchedule.r_alone_repeats_forever") {
  const ChronosSchedule s = parse_chronos_schedule("R/2026-01-05T02:00:00Z/PT6H");
  CHECK_FALSE(s.repeats.has_value());
  CHECK_FALSE(s.count().has_value());
  CHECK(s.start_us == kJan5At2);
  CHECK(s.period.micros == 6 * kHour);
  CHECK(s.occurrence(0) == kJan5At2);
  CHECK(s.occurrence(1) == kJan5At2 + 6 * kHour);
  CHECK(s.occurrence(4) == kJan5At2 + kDay);  // 2026-01-06T02:00:00Z
  CHECK(s.occurrence(1'000'000) == kJan5At2 + 6'000'000 * kHour);
}

TEST_CASE("Workload.ChronosSchedule.rn_runs_the_job_n_times") {
  // Chronos: "Rn to repeat n times"; occurrences k = 0 .. n-1.
  const ChronosSchedule five = parse_chronos_schedule("R5/2026-01-05T02:00:00Z/P1D");
  REQUIRE(five.count().has_value());
  CHECK(*five.count() == 5);
  CHECK(five.repeats == std::optional<std::uint64_t>(5));
  CHECK(five.period.days == 1);
  CHECK(five.occurrence(4) == kJan5At2 + 4 * kDay);  // the last: 2026-01-09T02:00:00Z
  CHECK(five.occurrence(4) == at("2026-01-09T02:00:00Z"));

  CHECK(*parse_chronos_schedule("R1/2026-01-05T02:00:00Z/PT1M").count() == 1);  // once, at the start
  CHECK(*parse_chronos_schedule("R0/2026-01-05T02:00:00Z/PT1M").count() == 0);  // never
  CHECK(*parse_chronos_schedule("R007/2026-01-05/P1W").count() == 7);
  CHECK(*parse_chronos_schedule("R18446744073709551615/2026-01-05/P1W").count() ==
        std::numeric_limits<std::uint64_t>::max());

  // Every accepted start form works inside a schedule.
  const ChronosSchedule zoned = parse_chronos_schedule("R2/2026-01-05T03:00:00.25+01:00/P1W");
  CHECK(zoned.start_us == kJan5At2 + 250'000);
  CHECK(zoned.occurrence(1) == kJan5At2 + 250'000 + 7 * kDay);
  CHECK(parse_chronos_schedule("R/2026-01-05/PT6H").start_us == kJan5At2 - 2 * kHour);
}

TEST_CASE("Workload.ChronosSchedule.months_clamp_to_the_last_day_without_drift") {
  // January 31 plus a month is the last day of February; each occurrence is counted from the
  // start, so the next is March 31, not March 28.
  const ChronosSchedule s = parse_chronos_schedule("R/2026-01-31T12:00:00Z/P1M");
  // 2026-01-31T12:00:00Z: 30 days after 2026-01-01, plus 12 hours.
  CHECK(s.occurrence(0) == (kDays2026 + 30) * kDay + 12 * kHour);       // 1769860800 s
  CHECK(s.occurrence(1) == (kDays2026 + 31 + 27) * kDay + 12 * kHour);  // 2026-02-28
  CHECK(s.occurrence(1) == at("2026-02-28T12:00:00Z"));
  CHECK(s.occurrence(2) == at("2026-03-31T12:00:00Z"));
  CHECK(s.occurrence(3) == at("2026-04-30T12:00:00Z"));
  CHECK(s.occurrence(12) == at("2027-01-31T12:00:00Z"));
  CHECK(s.occurrence(13) == at("2027-02-28T12:00:00Z"));
  // In a leap year February has 29 days.
  const ChronosSchedule leap = parse_chronos_schedule("R3/2024-01-31/P1M");
  CHECK(leap.occurrence(1) == at("2024-02-29"));
  CHECK(leap.occurrence(2) == at("2024-03-31"));
  // Months and days together: the months first, then the days.
  CHECK(parse_chronos_schedule("R/2026-01-31/P1M1D").occurrence(1) == at("2026-03-01"));
}

TEST_CASE("Workload.ChronosSchedule.years_on_february_29") {
  const ChronosSchedule s = parse_chronos_schedule("R/2024-02-29T00:00:00Z/P1Y");
  CHECK(s.occurrence(0) == (19723 + 59) * kDay);  // 1709164800 s
  CHECK(s.occurrence(1) == at("2025-02-28"));
  CHECK(s.occurrence(1) == s.occurrence(0) + 365 * kDay);
  CHECK(s.occurrence(3) == at("2027-02-28"));
  CHECK(s.occurrence(4) == at("2028-02-29"));  // back on the 29th: no drift
  CHECK(s.occurrence(4) == s.occurrence(0) + (4 * 365 + 1) * kDay);
  CHECK(parse_chronos_schedule("R/2000-02-29/P100Y").occurrence(1) == at("2100-02-28"));  // 2100: not leap
  // Years before months, each clamping (Joda-Time's order, as in Chronos): 2025-02-28, then
  // one month later.
  CHECK(parse_chronos_schedule("R/2024-02-29/P1Y1M").occurrence(1) == at("2025-03-28"));
}

TEST_CASE("Workload.ChronosSchedule.add_duration_is_calendar_aware_and_checked") {
  const std::int64_t jan31 = at("2026-01-31T08:00:00Z");
  CHECK(add_duration_us(jan31, IsoDuration{.months = 1}, 0) == jan31);
  CHECK(add_duration_us(jan31, IsoDuration{.months = 1}, 1) == at("2026-02-28T08:00:00Z"));
  CHECK(add_duration_us(jan31, IsoDuration{.months = 1}, 2) == at("2026-03-31T08:00:00Z"));
  CHECK(add_duration_us(jan31, IsoDuration{.days = 1, .micros = kHour}, 3) == at("2026-02-03T11:00:00Z"));
  CHECK(add_duration_us(jan31, IsoDuration{.years = 2, .months = 1}, 1) == at("2028-02-29T08:00:00Z"));
  // Components built by code may be negative.
  CHECK(add_duration_us(at("2026-03-31"), IsoDuration{.months = -1}, 1) == at("2026-02-28"));
  CHECK(add_duration_us(0, IsoDuration{.micros = -kSecond}, 1) == -kSecond);
  // Beyond 64-bit microseconds (they end in year 294,247), or a product that does not fit.
  CHECK_NOTHROW(add_duration_us(0, IsoDuration{.years = 1}, 292'000));  // year 293,970
  CHECK_THROWS_AS(add_duration_us(0, IsoDuration{.years = 1}, 293'000), std::overflow_error);
  CHECK_THROWS_AS(add_duration_us(0, IsoDuration{.years = 1}, 1'000'000), std::overflow_error);
  CHECK_THROWS_AS(add_duration_us(0, IsoDuration{.months = std::numeric_limits<std::int64_t>::max()}, 2),
                  std::overflow_error);
  CHECK_THROWS_AS(add_duration_us(0, IsoDuration{.days = 1}, std::numeric_limits<std::uint64_t>::max()),
                  std::overflow_error);
  const ChronosSchedule s = parse_chronos_schedule("R/2026-01-05T02:00:00Z/PT6H");
  CHECK_THROWS_AS(s.occurrence(std::uint64_t{1} << 62), std::overflow_error);
  CHECK_THROWS_WITH_AS(add_duration_us(5, IsoDuration{.micros = std::numeric_limits<std::int64_t>::max()}, 1),
                       "5 us + 1 x (years 0, months 0, days 0, microseconds 9223372036854775807) is out of the "
                       "range of 64-bit microseconds (about 292,000 years either side of 1970)",
                       std::overflow_error);
}

TEST_CASE("Workload.ChronosSchedule.bad_schedules_say_where_and_what") {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      // The three parts.
      {"", "schedule '': is empty; expected R[n]/start/period, as in R/2026-01-05T02:00:00Z/PT6H"},
      {"R/2026-01-05T02:00:00Z",
       "schedule 'R/2026-01-05T02:00:00Z': expected R[n]/start/period, as in R/2026-01-05T02:00:00Z/PT6H: three "
       "parts separated by '/', found 2"},
      {"R/2026-01-05T02:00:00Z/PT6H/R",
       "schedule 'R/2026-01-05T02:00:00Z/PT6H/R': expected R[n]/start/period, as in R/2026-01-05T02:00:00Z/PT6H: "
       "three parts separated by '/', found 4"},
      {"R//PT6H", "start '': is empty (Chronos reads that as 'now'; a simulated schedule needs a fixed start)"},
      {"R/2026-01-05T02:00:00Z/", "period '': is empty; expected a duration such as P1D or PT6H"},
      // Repeat.
      {"/2026-01-05T02:00:00Z/PT6H", "repeat '': expected 'R' (forever) or 'R' and a count (as in R5)"},
      {"5/2026-01-05T02:00:00Z/PT6H", "repeat '5': expected 'R' (forever) or 'R' and a count (as in R5)"},
      {"r5/2026-01-05T02:00:00Z/PT6H", "repeat 'r5': expected 'R' (forever) or 'R' and a count (as in R5)"},
      {"R-1/2026-01-05T02:00:00Z/PT6H", "repeat 'R-1': a repeat count must not be negative"},
      {"R5x/2026-01-05T02:00:00Z/PT6H",
       "repeat 'R5x': unexpected 'x' after 'R5'; expected 'R' (forever) or 'R' and a count (as in R5)"},
      {"R 5/2026-01-05T02:00:00Z/PT6H",
       "repeat 'R 5': unexpected ' ' after 'R'; expected 'R' (forever) or 'R' and a count (as in R5)"},
      {"R18446744073709551616/2026-01-05T02:00:00Z/PT6H",
       "repeat 'R18446744073709551616': count is above 18446744073709551615"},
      // Start: shape.
      {"R/2026-1-05T02:00:00Z/PT6H", "start '2026-1-05T02:00:00Z': expected a month (2 digits) after '2026-'"},
      {"R/26-01-05T02:00:00Z/PT6H", "start '26-01-05T02:00:00Z': expected a year (4 digits) at the beginning"},
      {"R/2026/PT6H", "start '2026': expected '-' after '2026', found the end"},
      {"R/2026-01-05 02:00:00Z/PT6H",
       "start '2026-01-05 02:00:00Z': expected 'T' and a time (or the end, for a date alone) after '2026-01-05', "
       "found ' '"},
      {"R/2026-01-05T02:00Z/PT6H", "start '2026-01-05T02:00Z': expected ':' after '2026-01-05T02:00', found 'Z'"},
      {"R/2026-01-05T02:00:00.Z/PT6H",
       "start '2026-01-05T02:00:00.Z': expected digits after '2026-01-05T02:00:00.' (a fraction of a second)"},
      {"R/2026-01-05T02:00:00.1234567Z/PT6H",
       "start '2026-01-05T02:00:00.1234567Z': fraction '1234567' has more than 6 digits (a microsecond is the "
       "finest unit)"},
      {"R/2026-01-05T02:00:00+1:00/PT6H",
       "start '2026-01-05T02:00:00+1:00': expected an offset hour (2 digits) after '2026-01-05T02:00:00+'"},
      {"R/2026-01-05T02:00:00z/PT6H",
       "start '2026-01-05T02:00:00z': expected a zone (Z, +hh:mm or -hh:mm) or the end after '2026-01-05T02:00:00', "
       "found 'z'"},
      {"R/2026-01-05T02:00:00Z /PT6H", "start '2026-01-05T02:00:00Z ': unexpected ' ' after '2026-01-05T02:00:00Z'"},
      {"R/2026-01-05T02:00:00+01:00:00/PT6H",
       "start '2026-01-05T02:00:00+01:00:00': unexpected ':' after '2026-01-05T02:00:00+01:00'"},
      // Start: ranges.
      {"R/2026-13-05T02:00:00Z/PT6H", "start '2026-13-05T02:00:00Z': month 13 is not in 1-12"},
      {"R/2026-00-05/PT6H", "start '2026-00-05': month 0 is not in 1-12"},
      {"R/2026-02-30T00:00:00Z/PT6H", "start '2026-02-30T00:00:00Z': day 30 is not in February 2026"},
      {"R/2025-02-29/P1Y", "start '2025-02-29': day 29 is not in February 2025"},
      {"R/2100-02-29/P1Y", "start '2100-02-29': day 29 is not in February 2100"},
      {"R/2026-04-31/P1Y", "start '2026-04-31': day 31 is not in April 2026"},
      {"R/2026-04-00/P1Y", "start '2026-04-00': day 0 is not in April 2026"},
      {"R/1969-12-31T23:59:59Z/PT6H", "start '1969-12-31T23:59:59Z': year 1969 is not in 1970-9999"},
      {"R/1970-01-01T00:30:00+01:00/PT6H", "start '1970-01-01T00:30:00+01:00': is before 1970-01-01T00:00:00Z"},
      {"R/2026-01-05T24:00:00Z/PT6H", "start '2026-01-05T24:00:00Z': hour 24 is not in 0-23"},
      {"R/2026-01-05T02:60:00Z/PT6H", "start '2026-01-05T02:60:00Z': minute 60 is not in 0-59"},
      {"R/2026-01-05T02:00:60Z/PT6H",
       "start '2026-01-05T02:00:60Z': second 60 is not in 0-59 (leap seconds are not counted)"},
      {"R/2026-01-05T02:00:00+24:00/PT6H", "start '2026-01-05T02:00:00+24:00': offset hour 24 is not in 0-23"},
      {"R/2026-01-05T02:00:00-05:60/PT6H", "start '2026-01-05T02:00:00-05:60': offset minutes 60 are not in 0-59"},
      // Period: numbers and units.
      {"R/2026-01-05T02:00:00Z/PT6", "period 'PT6': a number needs a unit (H, M or S) after 'PT6'"},
      {"R/2026-01-05T02:00:00Z/P6", "period 'P6': a number needs a unit (Y, M, W or D) after 'P6'"},
      {"R/2026-01-05T02:00:00Z/PT6X", "period 'PT6X': a number needs a unit (H, M or S) after 'PT6', found 'X'"},
      {"R/2026-01-05T02:00:00Z/PT6h", "period 'PT6h': a number needs a unit (H, M or S) after 'PT6', found 'h'"},
      {"R/2026-01-05T02:00:00Z/PD",
       "period 'PD': unit 'D' has no number before it (after 'P'); write it as in P1D or PT6H"},
      {"R/2026-01-05T02:00:00Z/PTH",
       "period 'PTH': unit 'H' has no number before it (after 'PT'); write it as in P1D or PT6H"},
      // Period: T.
      {"R/2026-01-05T02:00:00Z/P6H",
       "period 'P6H': 'H' needs 'T' before it: hours, minutes and seconds follow T, as in PT6H"},
      {"R/2026-01-05T02:00:00Z/P1S",
       "period 'P1S': 'S' needs 'T' before it: hours, minutes and seconds follow T, as in PT6H"},
      {"R/2026-01-05T02:00:00Z/PT1D", "period 'PT1D': 'D' must come before 'T' (as in P1DT6H)"},
      {"R/2026-01-05T02:00:00Z/PT", "period 'PT': 'T' must be followed by hours, minutes or seconds (as in PT6H)"},
      {"R/2026-01-05T02:00:00Z/P1DT", "period 'P1DT': 'T' must be followed by hours, minutes or seconds (as in PT6H)"},
      {"R/2026-01-05T02:00:00Z/PT6HT1M", "period 'PT6HT1M': 'T' appears twice (after 'PT6H')"},
      // Period: shape, order, fractions, size.
      {"R/2026-01-05T02:00:00Z/P", "period 'P': 'P' alone has no components; expected at least one, as in P1D or PT6H"},
      {"R/2026-01-05T02:00:00Z/6H", "period '6H': expected 'P' at the beginning (as in P1D or PT6H), found '6'"},
      {"R/2026-01-05T02:00:00Z/p1d", "period 'p1d': expected 'P' at the beginning (as in P1D or PT6H), found 'p'"},
      {"R/2026-01-05T02:00:00Z/P1D1Y",
       "period 'P1D1Y': 'Y' after 'P1D1' is out of order or repeated; the order is Y, M, W, D, T, H, M, S"},
      {"R/2026-01-05T02:00:00Z/P1M1M",
       "period 'P1M1M': 'M' after 'P1M1' is out of order or repeated; the order is Y, M, W, D, T, H, M, S"},
      {"R/2026-01-05T02:00:00Z/P1.5D", "period 'P1.5D': only seconds may have a fraction; found '1.5' before 'D'"},
      {"R/2026-01-05T02:00:00Z/PT1.5M", "period 'PT1.5M': only seconds may have a fraction; found '1.5' before 'M'"},
      {"R/2026-01-05T02:00:00Z/PT1.1234567S",
       "period 'PT1.1234567S': fraction '1234567' has more than 6 digits (a microsecond is the finest unit)"},
      {"R/2026-01-05T02:00:00Z/P99999999999999999999D",
       "period 'P99999999999999999999D': number 99999999999999999999 is too large (above 9223372036854775807)"},
      {"R/2026-01-05T02:00:00Z/PT9999999999999H",
       "period 'PT9999999999999H': hours, minutes and seconds add up to more microseconds than 64 bits hold (about "
       "292,000 years)"},
      {"R/2026-01-05T02:00:00Z/P9223372036854775807W",
       "period 'P9223372036854775807W': weeks and days add up to more days than 64 bits hold"},
      // Period: trailing garbage, signs, zero.
      {"R/2026-01-05T02:00:00Z/PT6H ", "period 'PT6H ': unexpected ' ' after 'PT6H'"},
      {"R/2026-01-05T02:00:00Z/PT6H\n", "period 'PT6H\\n': unexpected '\\n' after 'PT6H'"},
      {"R/2026-01-05T02:00:00Z/-P1D", "period '-P1D': a duration must not be negative"},
      {"R/2026-01-05T02:00:00Z/P-1D", "period 'P-1D': a component must not be signed: '-' after 'P'"},
      {"R/2026-01-05T02:00:00Z/PT+6H", "period 'PT+6H': a component must not be signed: '+' after 'PT'"},
      {"R/2026-01-05T02:00:00Z/PT0S", "period 'PT0S': must be longer than zero"},
      {"R/2026-01-05T02:00:00Z/P0Y0M0W0DT0H0M0.0S", "period 'P0Y0M0W0DT0H0M0.0S': must be longer than zero"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    CHECK_THROWS_WITH_AS(parse_chronos_schedule(c.text), c.message, std::invalid_argument);
  }
}

TEST_CASE("Workload.ChronosSchedule.stand_alone_parsers_name_their_text") {
  CHECK_THROWS_WITH_AS(parse_iso_datetime_us("2026-02-30"), "date-time '2026-02-30': day 30 is not in February 2026",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_iso_datetime_us(""),
                       "date-time '': is empty; expected YYYY-MM-DDThh:mm:ss[.s][Z|+hh:mm|-hh:mm] or YYYY-MM-DD",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_iso_duration("PT6"), "duration 'PT6': a number needs a unit (H, M or S) after 'PT6'",
                       std::invalid_argument);
  // A long or multi-line text is quoted on one line, cut at 80 characters.
  const std::string long_text = "P" + std::string(100, 'x');
  CHECK_THROWS_WITH_AS(parse_iso_duration(long_text),
                       ("duration '" + long_text.substr(0, 80) + "...': unexpected 'x' after 'P'").c_str(),
                       std::invalid_argument);
}
