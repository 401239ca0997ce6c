// Doubles as fixed-point text with a given number of decimals: the characters of printf's
// "%.Nf" (and fmt's "{:.Nf}", and std::to_chars' fixed form), which round the double's exact
// value to N decimals, half to even. The results files write millions of such numbers
// (timeline rows); most take an exact integer path here instead of the general algorithm.
#pragma once

#include <string>

namespace schedlab::util {

// Appends `v` with `decimals` (0 to 9) digits after the point.
void append_fixed(std::string& out, double v, int decimals);

}  // namespace schedlab::util
