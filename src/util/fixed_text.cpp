// Fixed-point text of a double; see fixed_text.h.
#include "util/fixed_text.h"

#include <charconv>
#include <cmath>
#include <cstdint>

namespace schedlab::util {

namespace {
constexpr double kPow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

// v * 10^decimals rounded half to even, when that can be decided exactly in doubles: x is the
// rounded product and e = fma(v, 10^d, -x) its exact error, so the exact product is x + e.
// Below 2^52 the fraction f of x is exact and a multiple of ulp(x), as is 0.5, while
// |e| <= ulp(x) / 2: f + e is above (below) one half exactly when f is, and when f is one half
// the sign of e decides, an exact tie (e = 0) going to the even neighbour.
bool scaled_rounded(double v, int decimals, std::uint64_t& out) {
  if (!(v >= 0) || std::signbit(v)) return false;  // negatives (and -0, NaN) take the general path
  const double scale = kPow10[decimals];
  const double x = v * scale;
  if (!(x < 4503599627370496.0)) return false;  // 2^52
  const double e = std::fma(v, scale, -x);
  const double whole = std::floor(x);
  const double f = x - whole;
  auto n = static_cast<std::uint64_t>(whole);
  // (f = 0 with e < 0: the exact product is just below `whole`, and still rounds to it.)
  if (f > 0.5 || (f == 0.5 && (e > 0 || (e == 0 && (n & 1))))) ++n;
  out = n;
  return true;
}
}  // namespace

void append_fixed(std::string& out, double v, int decimals) {
  std::uint64_t n = 0;
  if (decimals >= 0 && decimals <= 9 && scaled_rounded(v, decimals, n)) {
    const auto scale = static_cast<std::uint64_t>(kPow10[decimals]);
    char buf[40];
    char* end = std::to_chars(buf, buf + 21, n / scale).ptr;
    if (decimals > 0) {
      *end++ = '.';
      std::uint64_t frac = n % scale;
      for (int i = decimals - 1; i >= 0; --i, frac /= 10) end[i] = static_cast<char>('0' + frac % 10);
      end += decimals;
    }
    out.append(buf, static_cast<std::size_t>(end - buf));
    return;
  }
  char digits[352];  // the longest fixed form of a double (DBL_MAX with 9 decimals) fits
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, v, std::chars_format::fixed, decimals);
  out.append(digits, static_cast<std::size_t>(end - digits));
}

}  // namespace schedlab::util
