// Doubles as fixed-point text with a given number of decimals: the characters of printf's
// "%.Nf" (and fmt's "{:.Nf}", and std::to_chars' fixed form), which round the double's exact
// value to N decimals, half to even. The results files write millions of such numbers
// (timeline rows); most take an exact integer path here instead of the general algorithm.
#pragma once

#include <cstddef>
#include <string>

namespace schedlab::util {

// The longest text put_fixed writes: DBL_MAX's 309 digits, a sign, a point and 9 decimals fit.
inline constexpr std::size_t kFixedTextMax = 352;

// Writes `v` with `decimals` (0 to 9) digits after the point at `p`, at most kFixedTextMax
// characters, and returns the end (writers of many rows fill a row through one pointer).
char* put_fixed(char* p, double v, int decimals);

// Appends `v` with `decimals` (0 to 9) digits after the point.
void append_fixed(std::string& out, double v, int decimals);

}  // namespace schedlab::util
