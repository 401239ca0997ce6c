// Replay against the record: where a trace records when its jobs really started, their recorded
// waits beside the simulated first waits (the wait before the first start, which is what a
// trace's start records), as mean, p50 and p90 over the same jobs: those with a recorded wait
// that the simulation started (a job dropped or never started has no simulated first wait).
// docs/metrics.md, "Replay against the record", says what a replay cannot know.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

#include "metrics/collector.h"

namespace schedlab::metrics {

struct RecordedWaitComparison {
  // No value, as summary.h's kNoValue (which includes this header).
  static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  std::uint64_t recorded = 0;  // jobs whose trace recorded a wait
  std::uint64_t compared = 0;  // of which the simulation started: the jobs the figures cover
  double recorded_mean_s = kNone, recorded_p50_s = kNone, recorded_p90_s = kNone;
  double simulated_mean_s = kNone, simulated_p50_s = kNone, simulated_p90_s = kNone;
};

// Nothing when no job has a recorded wait (the run's results then say nothing of it).
std::optional<RecordedWaitComparison> compare_recorded_waits(const Collector& c);

}  // namespace schedlab::metrics
