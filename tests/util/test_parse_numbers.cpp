// try_parse_double and try_parse_int read plain digits without from_chars: the values must be
// the very doubles and integers from_chars gives, for every shape of number a trace holds.
#include <doctest/doctest.h>

#include <charconv>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "util/parse.h"

using namespace schedlab;

namespace {
bool reference_double(const std::string& s, double& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}
}  // namespace

TEST_CASE("Util.Parse.plain_decimals_read_as_from_chars_reads_them") {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 300000; ++i) {
    // 1 to 17 digits, a point at any place (or none): across the 15-digit fast-path limit.
    const int digits = 1 + static_cast<int>(rng() % 17);
    std::string s;
    for (int d = 0; d < digits; ++d) s += static_cast<char>('0' + rng() % 10);
    const int point = static_cast<int>(rng() % static_cast<std::uint64_t>(digits + 1));
    if (point > 0 && point < digits) s.insert(static_cast<std::size_t>(point), 1, '.');
    double want = 0, got = 0;
    REQUIRE(reference_double(s, want));
    REQUIRE(util::try_parse_double(s, got));
    REQUIRE(std::memcmp(&want, &got, sizeof want) == 0);
  }
  // Values whose last digit sits on a rounding edge of a double.
  for (const char* s : {"0.1", "0.3", "2.675", "1.005", "9007199254740.993", "123456789012.345", "0.000001",
                        "254.000000", "0.024557", "999999999999999", "000000000000012.5"}) {
    double want = 0, got = 0;
    REQUIRE(reference_double(s, want));
    REQUIRE(util::try_parse_double(s, got));
    CHECK(std::memcmp(&want, &got, sizeof want) == 0);
  }
}

TEST_CASE("Util.Parse.numbers_outside_the_plain_shape_still_parse_or_fail_as_before") {
  double d = 0;
  CHECK(util::try_parse_double(" 12.5 ", d));
  CHECK(d == 12.5);
  CHECK(util::try_parse_double("+3", d));
  CHECK(d == 3);
  CHECK(util::try_parse_double("-0.5", d));
  CHECK(d == -0.5);
  CHECK(util::try_parse_double("1e3", d));
  CHECK(d == 1000);
  CHECK(util::try_parse_double("5.", d) == reference_double("5.", d));
  CHECK_FALSE(util::try_parse_double("", d));
  CHECK_FALSE(util::try_parse_double("1.2.3", d));
  CHECK_FALSE(util::try_parse_double("12a", d));
  CHECK_FALSE(util::try_parse_double("inf", d));
  std::int64_t v = 0;
  CHECK(util::try_parse_int("000123", v));
  CHECK(v == 123);
  CHECK(util::try_parse_int("999999999999999999", v));
  CHECK(v == 999999999999999999);
  CHECK(util::try_parse_int("9223372036854775807", v));
  CHECK(v == INT64_MAX);
  CHECK_FALSE(util::try_parse_int("9223372036854775808", v));
  CHECK(util::try_parse_int(" -7", v));
  CHECK(v == -7);
  CHECK_FALSE(util::try_parse_int("", v));
  CHECK_FALSE(util::try_parse_int("1.5", v));
}
