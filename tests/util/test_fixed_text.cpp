// append_fixed against std::to_chars' fixed form (the characters fmt's "{:.Nf}" and printf's
// "%.Nf" give): exact ties, values next to ties, integers, tiny and huge values, negatives.
#include <doctest/doctest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "util/fixed_text.h"

using schedlab::util::append_fixed;

namespace {
std::string reference(double v, int decimals) {
  char buf[400];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  return std::string(buf, end);
}

std::string fixed(double v, int decimals) {
  std::string out = "x";  // appends: what was there stays
  append_fixed(out, v, decimals);
  return out.substr(1);
}
}  // namespace

TEST_CASE("Util.FixedText.matches_to_chars_fixed") {
  std::mt19937_64 rng(11);
  for (const int d : {0, 1, 3, 6, 9}) {
    // Exact binary ties at this many decimals and their neighbours.
    for (std::int64_t k = 0; k < 40000; ++k)
      for (const double v : {static_cast<double>(k) / 16, static_cast<double>(k) / 2048, static_cast<double>(k) * 0.001,
                             static_cast<double>(k) / 3, static_cast<double>(k) + 0.5, static_cast<double>(k) * 1e-6}) {
        REQUIRE(fixed(v, d) == reference(v, d));
        REQUIRE(fixed(std::nextafter(v, 0.0), d) == reference(std::nextafter(v, 0.0), d));
        REQUIRE(fixed(std::nextafter(v, 1e300), d) == reference(std::nextafter(v, 1e300), d));
      }
    // Random doubles of every magnitude and sign, and random integers scaled by powers of two.
    for (int i = 0; i < 300000; ++i) {
      double v;
      const std::uint64_t bits = rng();
      std::memcpy(&v, &bits, sizeof v);
      if (std::isfinite(v) && std::fabs(v) < 1e30) REQUIRE(fixed(v, d) == reference(v, d));
      const double w = std::ldexp(static_cast<double>(rng() % 100000000), -static_cast<int>(rng() % 60));
      REQUIRE(fixed(w, d) == reference(w, d));
    }
    for (const double v : {0.0, -0.0, -0.0004, -1.5, 4503599627370495.5, 4503599627370496.0, 1e300, 0.0625, 0.125,
                           2.5, 3.5, 1e-320, 0.0005, 0.0015, 123456.0005})
      CHECK(fixed(v, d) == reference(v, d));
  }
}
