// Fixed-point text of a double; see fixed_text.h.
#include "util/fixed_text.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace schedlab::util {

namespace {
constexpr double kPow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

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

char* put_fixed(char* p, double v, int decimals) {
  std::uint64_t n = 0;
  if (decimals >= 0 && decimals <= 9 && scaled_rounded(v, decimals, n)) {
    // n's digits from the right, two at a time, the point `decimals` places from the end
    // (n < 2^52: at most 16 digits, a point and the zeros before a small fraction's digits).
    char digits[32];
    char* q = digits + sizeof digits;
    auto two = [&q](std::uint64_t nn) {
      q -= 2;
      std::memcpy(q, kDigitPairs + 2 * nn, 2);
    };
    int left = decimals;
    for (; left >= 2; left -= 2, n /= 100) two(n % 100);
    if (left == 1) {
      *--q = static_cast<char>('0' + n % 10);
      n /= 10;
    }
    if (decimals > 0) *--q = '.';
    for (; n >= 100; n /= 100) two(n % 100);
    if (n >= 10)
      two(n);
    else
      *--q = static_cast<char>('0' + n);
    const auto len = static_cast<std::size_t>(digits + sizeof digits - q);
    std::memcpy(p, q, len);
    return p + len;
  }
  return std::to_chars(p, p + kFixedTextMax, v, std::chars_format::fixed, decimals).ptr;
}

void append_fixed(std::string& out, double v, int decimals) {
  char text[kFixedTextMax];
  out.append(text, static_cast<std::size_t>(put_fixed(text, v, decimals) - text));
}

}  // namespace schedlab::util
