// The measurement window of a run's time-averaged figures (GPU and CPU utilization,
// fragmentation): the same span for every variant of a comparison, so that a variant that
// drains its queue more slowly is not credited or blamed for its drain tail.
// docs/metrics.md, "Measurement window".
#pragma once

#include <optional>

#include "engine/time.h"

namespace schedlab::metrics {

struct MeasureWindow {
  // Absolute times on the run's clock (after any arrival scaling). Unset: the first
  // submission (start) and the last submission (end).
  std::optional<engine::Time> start, end;
  // Added to the start (given or default): the first part of the run left out as warm-up.
  engine::Time warmup = 0;
};

}  // namespace schedlab::metrics
