// Reading Chronos schedules and ISO 8601 date-times and durations; calendar arithmetic on
// microseconds since the Unix epoch (see chronos_schedule.h for the accepted forms).
#include "workload/chronos_schedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace schedlab::workload {

// A named namespace around the anonymous one: unity builds batch this file with others that
// have their own `days_from_civil` and `digits` helpers.
namespace chronos_text {
namespace {

constexpr std::int64_t kMicrosPerSecond = 1'000'000;
constexpr std::int64_t kMicrosPerDay = 86'400 * kMicrosPerSecond;
constexpr int kMinYear = 1970, kMaxYear = 9999;  // of a written date
// Years that calendar arithmetic may pass through: 64-bit microseconds end near year
// 294,247 (and 290,308 BC), so a date beyond this bound cannot be a result anyway.
constexpr std::int64_t kMaxCalendarYear = 300'000;
constexpr int kMaxFractionDigits = 6;

constexpr const char* kMonthNames[12] = {"January", "February", "March",     "April",   "May",      "June",
                                         "July",    "August",   "September", "October", "November", "December"};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Text inside a message: one line (control bytes escaped), at most 80 characters.
std::string shown(std::string_view s) {
  constexpr std::size_t kMax = 80;
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < kMax; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  if (s.size() > kMax) out += "...";
  return out;
}

std::string char_text(char c) { return "'" + shown(std::string_view(&c, 1)) + "'"; }

[[noreturn]] void fail(std::string_view label, std::string_view text, const std::string& what) {
  throw std::invalid_argument(fmt::format("{} '{}': {}", label, shown(text), what));
}

// --- Calendar (proleptic Gregorian; Howard Hinnant's public-domain algorithms) ---

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

bool is_leap(std::int64_t y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }

unsigned last_day_of(std::int64_t y, unsigned m) {
  constexpr unsigned kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : kDays[m - 1];
}

// Days since 1970-01-01 of y-m-d (|y| within kMaxCalendarYear + 1).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<std::int64_t>(y - era * 400);                 // [0, 399]
  const std::int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;  // [0, 365]
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;            // [0, 146096]
  return era * 146097 + doe - 719468;
}

struct Civil {
  std::int64_t y;
  unsigned m, d;
};

Civil civil_from_days(std::int64_t z) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;                                       // [0, 146096]
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                // [0, 365]
  const std::int64_t mp = (5 * doy + 2) / 153;                                     // [0, 11]
  const auto d = static_cast<unsigned>(doy - (153 * mp + 2) / 5 + 1);
  const auto m = static_cast<unsigned>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (m <= 2 ? 1 : 0), m, d};
}

// --- Reading text ---

// A position in one part of the text; its failures quote the part and what came before.
struct Cursor {
  std::string_view label;
  std::string_view text;
  std::size_t pos = 0;

  bool done() const { return pos >= text.size(); }
  char peek() const { return done() ? '\0' : text[pos]; }
  std::string where() const {
    return pos == 0 ? std::string("at the beginning") : fmt::format("after '{}'", shown(text.substr(0, pos)));
  }
  std::string found() const { return done() ? std::string("found the end") : "found " + char_text(peek()); }
  [[noreturn]] void fail(const std::string& what) const { chronos_text::fail(label, text, what); }

  // Exactly n digits; a failure points at the start of the field.
  int fixed_digits(std::size_t n, const char* what) {
    const std::size_t from = pos;
    int v = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!is_digit(peek())) {
        pos = from;
        fail(fmt::format("expected {} ({} digits) {}", what, n, where()));
      }
      v = v * 10 + (text[pos++] - '0');
    }
    return v;
  }
  void expect(char c, const char* what) {
    if (peek() != c || done()) fail(fmt::format("expected {} {}, {}", what, where(), found()));
    ++pos;
  }
  // A run of digits (possibly empty).
  std::string_view digit_run() {
    const std::size_t from = pos;
    while (is_digit(peek())) ++pos;
    return text.substr(from, pos - from);
  }
  // 1 to 6 digits after a decimal mark, as microseconds.
  std::int64_t fraction_micros() {
    const std::string_view f = digit_run();
    if (f.empty()) fail(fmt::format("expected digits {} (a fraction of a second)", where()));
    if (f.size() > kMaxFractionDigits)
      fail(fmt::format("fraction '{}' has more than {} digits (a microsecond is the finest unit)", shown(f),
                       kMaxFractionDigits));
    std::int64_t us = 0;
    for (std::size_t i = 0; i < kMaxFractionDigits; ++i) us = us * 10 + (i < f.size() ? f[i] - '0' : 0);
    return us;
  }
};

// Non-negative decimal digits into int64; nullopt when too large.
std::optional<std::int64_t> to_int64(std::string_view digits) {
  std::int64_t v = 0;
  for (char c : digits)
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, c - '0', &v)) return std::nullopt;
  return v;
}

std::int64_t datetime_us(std::string_view label, std::string_view text) {
  constexpr const char* kForms = "YYYY-MM-DDThh:mm:ss[.s][Z|+hh:mm|-hh:mm] or YYYY-MM-DD";
  Cursor c{label, text};
  if (text.empty()) c.fail(fmt::format("is empty; expected {}", kForms));
  const int year = c.fixed_digits(4, "a year");
  if (year < kMinYear || year > kMaxYear) c.fail(fmt::format("year {} is not in {}-{}", year, kMinYear, kMaxYear));
  c.expect('-', "'-'");
  const int month = c.fixed_digits(2, "a month");
  if (month < 1 || month > 12) c.fail(fmt::format("month {} is not in 1-12", month));
  c.expect('-', "'-'");
  const int day = c.fixed_digits(2, "a day");
  const auto m = static_cast<unsigned>(month);
  if (day < 1 || static_cast<unsigned>(day) > last_day_of(year, m))
    c.fail(fmt::format("day {} is not in {} {}", day, kMonthNames[m - 1], year));
  const std::int64_t days = days_from_civil(year, m, static_cast<unsigned>(day));
  if (c.done()) return days * kMicrosPerDay;  // a date alone: midnight UTC

  c.expect('T', "'T' and a time (or the end, for a date alone)");
  const int hour = c.fixed_digits(2, "an hour");
  if (hour > 23) c.fail(fmt::format("hour {} is not in 0-23", hour));
  c.expect(':', "':'");
  const int minute = c.fixed_digits(2, "a minute");
  if (minute > 59) c.fail(fmt::format("minute {} is not in 0-59", minute));
  c.expect(':', "':'");
  const int second = c.fixed_digits(2, "a second");
  if (second > 59) c.fail(fmt::format("second {} is not in 0-59 (leap seconds are not counted)", second));
  std::int64_t frac_us = 0;
  if (c.peek() == '.' || c.peek() == ',') {
    ++c.pos;
    frac_us = c.fraction_micros();
  }

  std::int64_t offset_s = 0;  // local time minus UTC
  if (c.peek() == 'Z') {
    ++c.pos;
  } else if (c.peek() == '+' || c.peek() == '-') {
    const int sign = c.text[c.pos++] == '-' ? -1 : 1;
    const int oh = c.fixed_digits(2, "an offset hour");
    if (oh > 23) c.fail(fmt::format("offset hour {} is not in 0-23", oh));
    if (c.peek() == ':') ++c.pos;
    const int om = c.fixed_digits(2, "offset minutes");
    if (om > 59) c.fail(fmt::format("offset minutes {} are not in 0-59", om));
    offset_s = sign * (oh * 3600 + om * 60);
  } else if (!c.done()) {
    c.fail(fmt::format("expected a zone (Z, +hh:mm or -hh:mm) or the end {}, {}", c.where(), c.found()));
  }
  if (!c.done()) c.fail(fmt::format("unexpected {} {}", char_text(c.peek()), c.where()));

  const std::int64_t local_s = days * 86'400 + hour * 3'600 + minute * 60 + second;
  const std::int64_t us = (local_s - offset_s) * kMicrosPerSecond + frac_us;  // years <= 9999: no overflow
  if (us < 0) c.fail("is before 1970-01-01T00:00:00Z");
  return us;
}

IsoDuration duration(std::string_view label, std::string_view text) {
  Cursor c{label, text};
  if (text.empty()) c.fail("is empty; expected a duration such as P1D or PT6H");
  if (text.front() == '-') c.fail("a duration must not be negative");
  if (text.front() != 'P') c.fail(fmt::format("expected 'P' at the beginning (as in P1D or PT6H), {}", c.found()));
  ++c.pos;
  if (c.done()) c.fail("'P' alone has no components; expected at least one, as in P1D or PT6H");

  // Components in ISO order: Y M W D, then after T: H M S.
  std::int64_t value[7] = {};
  std::int64_t second_frac_us = 0;
  int last_rank = -1;
  bool in_time = false;
  while (!c.done()) {
    const char ch = c.peek();
    if (ch == 'T') {
      if (in_time) c.fail(fmt::format("'T' appears twice ({})", c.where()));
      in_time = true;
      ++c.pos;
      if (c.done()) c.fail("'T' must be followed by hours, minutes or seconds (as in PT6H)");
      continue;
    }
    const char* units = in_time ? "H, M or S" : "Y, M, W or D";
    if (ch == '-' || ch == '+') c.fail(fmt::format("a component must not be signed: {} {}", char_text(ch), c.where()));
    if (!is_digit(ch)) {
      if (std::string_view("YMWDHS").find(ch) != std::string_view::npos)
        c.fail(fmt::format("unit '{}' has no number before it ({}); write it as in P1D or PT6H", ch, c.where()));
      c.fail(fmt::format("unexpected {} {}", char_text(ch), c.where()));
    }
    const std::size_t number_at = c.pos;
    const std::string_view digits = c.digit_run();
    bool has_fraction = false;
    std::int64_t frac_us = 0;
    if (c.peek() == '.' || c.peek() == ',') {
      ++c.pos;
      has_fraction = true;
      frac_us = c.fraction_micros();
    }
    const std::string_view number = c.text.substr(number_at, c.pos - number_at);
    if (c.done()) c.fail(fmt::format("a number needs a unit ({}) {}", units, c.where()));
    const char unit = c.peek();
    int rank = -1;
    if (!in_time) {
      rank = unit == 'Y' ? 0 : unit == 'M' ? 1 : unit == 'W' ? 2 : unit == 'D' ? 3 : -1;
      if (unit == 'H' || unit == 'S')
        c.fail(fmt::format("'{}' needs 'T' before it: hours, minutes and seconds follow T, as in PT6H", unit));
    } else {
      rank = unit == 'H' ? 4 : unit == 'M' ? 5 : unit == 'S' ? 6 : -1;
      if (unit == 'Y' || unit == 'W' || unit == 'D')
        c.fail(fmt::format("'{}' must come before 'T' (as in P1DT6H)", unit));
    }
    if (rank < 0) c.fail(fmt::format("a number needs a unit ({}) {}, {}", units, c.where(), c.found()));
    if (rank <= last_rank)
      c.fail(fmt::format("'{}' {} is out of order or repeated; the order is Y, M, W, D, T, H, M, S", unit, c.where()));
    if (has_fraction && rank != 6)
      c.fail(fmt::format("only seconds may have a fraction; found '{}' before '{}'", shown(number), unit));
    const auto v = to_int64(digits);
    if (!v)
      c.fail(fmt::format("number {} is too large (above {})", shown(digits), std::numeric_limits<std::int64_t>::max()));
    value[rank] = *v;
    if (rank == 6) second_frac_us = frac_us;
    last_rank = rank;
    ++c.pos;
  }

  IsoDuration d;
  d.years = value[0];
  d.months = value[1];
  if (__builtin_mul_overflow(value[2], std::int64_t{7}, &d.days) || __builtin_add_overflow(d.days, value[3], &d.days))
    c.fail("weeks and days add up to more days than 64 bits hold");
  std::int64_t h_us = 0, m_us = 0, s_us = 0;
  if (__builtin_mul_overflow(value[4], 3'600 * kMicrosPerSecond, &h_us) ||
      __builtin_mul_overflow(value[5], 60 * kMicrosPerSecond, &m_us) ||
      __builtin_mul_overflow(value[6], kMicrosPerSecond, &s_us) || __builtin_add_overflow(h_us, m_us, &d.micros) ||
      __builtin_add_overflow(d.micros, s_us, &d.micros) || __builtin_add_overflow(d.micros, second_frac_us, &d.micros))
    c.fail("hours, minutes and seconds add up to more microseconds than 64 bits hold (about 292,000 years)");
  return d;
}

std::uint64_t repeat_count(std::string_view text) {
  Cursor c{"repeat", text};
  if (text.empty() || text.front() != 'R') c.fail("expected 'R' (forever) or 'R' and a count (as in R5)");
  ++c.pos;
  if (c.peek() == '-') c.fail("a repeat count must not be negative");
  const std::string_view digits = c.digit_run();
  if (!c.done())
    c.fail(fmt::format("unexpected {} {}; expected 'R' (forever) or 'R' and a count (as in R5)", char_text(c.peek()),
                       c.where()));
  std::uint64_t n = 0;
  for (char ch : digits)
    if (__builtin_mul_overflow(n, 10u, &n) || __builtin_add_overflow(n, static_cast<unsigned>(ch - '0'), &n))
      c.fail(fmt::format("count is above {}", std::numeric_limits<std::uint64_t>::max()));
  return n;
}

[[noreturn]] void overflow(std::int64_t at_us, const IsoDuration& d, std::uint64_t times) {
  throw std::overflow_error(fmt::format(
      "{} us + {} x (years {}, months {}, days {}, microseconds {}) is out of the range of 64-bit microseconds "
      "(about 292,000 years either side of 1970)",
      at_us, times, d.years, d.months, d.days, d.micros));
}

}  // namespace
}  // namespace chronos_text

std::int64_t ChronosSchedule::occurrence(std::uint64_t k) const { return add_duration_us(start_us, period, k); }

std::optional<std::uint64_t> ChronosSchedule::count() const { return repeats; }

std::int64_t parse_iso_datetime_us(std::string_view text) { return chronos_text::datetime_us("date-time", text); }

IsoDuration parse_iso_duration(std::string_view text) { return chronos_text::duration("duration", text); }

ChronosSchedule parse_chronos_schedule(std::string_view text) {
  constexpr const char* kForm = "R[n]/start/period, as in R/2026-01-05T02:00:00Z/PT6H";
  if (text.empty()) chronos_text::fail("schedule", text, fmt::format("is empty; expected {}", kForm));
  const auto parts = static_cast<std::size_t>(std::count(text.begin(), text.end(), '/')) + 1;
  if (parts != 3)
    chronos_text::fail("schedule", text,
                       fmt::format("expected {}: three parts separated by '/', found {}", kForm, parts));
  const std::size_t a = text.find('/');
  const std::size_t b = text.find('/', a + 1);
  const std::string_view repeat = text.substr(0, a), start = text.substr(a + 1, b - a - 1), period = text.substr(b + 1);

  ChronosSchedule s;
  if (repeat != "R") s.repeats = chronos_text::repeat_count(repeat);
  if (start.empty())
    chronos_text::fail("start", start,
                       "is empty (Chronos reads that as 'now'; a simulated schedule needs a fixed start)");
  s.start_us = chronos_text::datetime_us("start", start);
  s.period = chronos_text::duration("period", period);
  if (s.period.zero()) chronos_text::fail("period", period, "must be longer than zero");
  return s;
}

std::int64_t add_duration_us(std::int64_t at_us, const IsoDuration& d, std::uint64_t times) {
  namespace ct = chronos_text;
  if (times == 0 || d.zero()) return at_us;
  if (times > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) ct::overflow(at_us, d, times);
  const auto t = static_cast<std::int64_t>(times);
  std::int64_t years = 0, months = 0, days = 0, micros = 0;
  if (__builtin_mul_overflow(d.years, t, &years) || __builtin_mul_overflow(d.months, t, &months) ||
      __builtin_mul_overflow(d.days, t, &days) || __builtin_mul_overflow(d.micros, t, &micros))
    ct::overflow(at_us, d, times);

  // The date moves; the time of day stays. Only the change in days is converted back to
  // microseconds, so an instant near either end of the range does not overflow on the way.
  const std::int64_t from_day = ct::floor_div(at_us, ct::kMicrosPerDay);
  ct::Civil c = ct::civil_from_days(from_day);
  auto check_year = [&] {
    if (c.y > ct::kMaxCalendarYear || c.y < -ct::kMaxCalendarYear) ct::overflow(at_us, d, times);
  };
  // Largest unit first, each clamping the day to its month (Joda-Time's order, as in Chronos).
  if (years != 0) {
    if (years > ct::kMaxCalendarYear || years < -ct::kMaxCalendarYear) ct::overflow(at_us, d, times);
    c.y += years;
    check_year();
    c.d = std::min(c.d, ct::last_day_of(c.y, c.m));
  }
  if (months != 0) {
    std::int64_t index = c.y * 12 + static_cast<std::int64_t>(c.m - 1);
    if (__builtin_add_overflow(index, months, &index)) ct::overflow(at_us, d, times);
    c.y = ct::floor_div(index, 12);
    c.m = static_cast<unsigned>(index - c.y * 12 + 1);
    check_year();
    c.d = std::min(c.d, ct::last_day_of(c.y, c.m));
  }
  std::int64_t day_change = ct::days_from_civil(c.y, c.m, c.d) - from_day;
  std::int64_t us = 0;
  if (__builtin_add_overflow(day_change, days, &day_change) ||
      __builtin_mul_overflow(day_change, ct::kMicrosPerDay, &us) || __builtin_add_overflow(us, at_us, &us) ||
      __builtin_add_overflow(us, micros, &us))
    ct::overflow(at_us, d, times);
  return us;
}

}  // namespace schedlab::workload
