// Strict parsing with std::from_chars (locale-free, no allocation).
#include "util/parse.h"

#include <fmt/format.h>

#include <cmath>

#include "util/error.h"

namespace schedlab::util {

void split_fields(std::string_view line, char sep, std::vector<std::string_view>& out) {
  out.clear();
  // One pass over the bytes: trace fields are short (often empty), and a memchr call per
  // field cost more than the bytes it looked at.
  const char* start = line.data();
  const char* const end = start + line.size();
  for (const char* p = start; p != end; ++p)
    if (*p == sep) {
      out.emplace_back(start, static_cast<std::size_t>(p - start));
      start = p + 1;
    }
  out.emplace_back(start, static_cast<std::size_t>(end - start));
}

void split_whitespace(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t i = 0, n = line.size();
  while (i < n) {
    while (i < n && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= n) break;
    std::size_t j = i;
    while (j < n && line[j] != ' ' && line[j] != '\t') ++j;
    out.push_back(line.substr(i, j - i));
    i = j;
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

namespace {
// The common trace field, plain digits with at most one '.' between digits and at most 15
// digits in all, read without from_chars: its value is M / 10^k with M < 10^15 < 2^53 and
// k <= 15, both exact doubles, so the one division rounds it correctly, which is the double
// from_chars gives too (Clinger's fast path). False, and nothing read, for anything else.
bool try_plain_decimal(std::string_view s, double& out) {
  static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  std::uint64_t m = 0;
  int digits = 0;
  int decimals = -1;  // digits after the point; -1: no point
  for (const char c : s) {
    if (c >= '0' && c <= '9') {
      m = m * 10 + static_cast<std::uint64_t>(c - '0');
      if (++digits > 15) return false;
      if (decimals >= 0) ++decimals;
    } else if (c == '.' && decimals < 0 && digits > 0) {
      decimals = 0;
    } else {
      return false;
    }
  }
  if (digits == 0 || decimals == 0) return false;
  out = static_cast<double>(m) / kPow10[decimals < 0 ? 0 : decimals];
  return true;
}

// Plain digits, at most 18 (below 2^63): the value from_chars gives, without it.
bool try_plain_int(std::string_view s, std::int64_t& out) {
  if (s.empty() || s.size() > 18) return false;
  std::int64_t v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}
}  // namespace

bool try_parse_int(std::string_view s, std::int64_t& out) {
  if (try_plain_int(s, out)) return true;
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

bool try_parse_double(std::string_view s, double& out) {
  if (try_plain_decimal(s, out)) return true;
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && std::isfinite(out);
}

std::int64_t parse_int(std::string_view s, const FieldContext& where) {
  std::int64_t v;
  if (try_parse_int(s, v)) return v;
  std::string_view t = trim(s);
  double d;
  // Traces written by pandas and friends say 3613033.0 for an integer: a whole number is one.
  constexpr double kLimit = 9.2233720368547748e18;  // 2^63, the first double past int64
  if (try_parse_double(t, d) && d == std::floor(d) && d > -kLimit && d < kLimit) return static_cast<std::int64_t>(d);
  std::string what = t.empty()                ? std::string("missing value")
                     : try_parse_double(t, d) ? fmt::format("'{}' is not a whole number", t)
                                              : fmt::format("'{}' is not a number", t);
  throw InputError(where.file, where.line, std::string(where.column), what);
}

double parse_double(std::string_view s, const FieldContext& where) {
  double v;
  if (try_parse_double(s, v)) return v;
  std::string_view t = trim(s);
  throw InputError(where.file, where.line, std::string(where.column),
                   t.empty() ? std::string("missing value") : fmt::format("'{}' is not a number", t));
}

std::int64_t parse_int_at_least(std::string_view s, std::int64_t min, const FieldContext& where) {
  std::int64_t v = parse_int(s, where);
  if (v < min)
    throw InputError(where.file, where.line, std::string(where.column),
                     fmt::format("{} is less than {}", v, min));
  return v;
}

double parse_double_at_least(std::string_view s, double min, const FieldContext& where) {
  double v = parse_double(s, where);
  if (v < min)
    throw InputError(where.file, where.line, std::string(where.column),
                     fmt::format("{} is less than {}", v, min));
  return v;
}

}  // namespace schedlab::util
