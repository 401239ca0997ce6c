// The one table of a run's summary figures: name, unit, how each is computed and where its
// value is. The printed summary, summary.json, `schedlab compare` (table, compare.csv,
// compare-long.csv) and `sweep collect` all list the figures from here, in this order, so a
// figure is added, renamed or explained in one place. docs/metrics.md gives each definition
// in full (a test checks that it names every figure of this table).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "metrics/summary.h"

namespace schedlab::metrics {

enum class FigureUnit : std::uint8_t {
  count,      // an integer
  seconds,    // a time, named ..._s
  share,      // a fraction of 1, printed in percent
  gpu_hours,  // GPU-hours
  number,     // a plain number (a ratio, an index)
};

// The unit as the printed summary names it ("s", "%", "GPU-h"; "" for counts and numbers).
std::string_view unit_symbol(FigureUnit unit);

struct FigureDef {
  std::string_view name;   // summary.json's key, compare's row
  std::string_view label;  // the printed summary's row, without its unit
  FigureUnit unit;
  std::string_view how;  // how it is computed, in one line
  double (*value)(const Summary&);  // kNoValue where it has none
};

// Every summary figure, in the order tables print them.
const std::vector<FigureDef>& summary_figures();
// The figure of that name; nullptr for a name not in the table (packing runs have their own).
const FigureDef* find_figure(std::string_view name);

}  // namespace schedlab::metrics
