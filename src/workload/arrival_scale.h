// Load as a knob on any trace: `workload.arrival_scale: S` multiplies every gap between
// consecutive submissions by S, keeping the first submission where it was (S < 1 packs the
// same jobs closer: more load; S > 1 spreads them: less). Durations and shapes are untouched,
// so a sweep over S varies only the offered load. Applied to the trace's (or generator's)
// jobs before services and cron entries join them.
#pragma once

#include <memory>

#include "workload/job_spec.h"

namespace schedlab::workload {

inline constexpr double kMinArrivalScale = 1e-3;
inline constexpr double kMaxArrivalScale = 1e3;

// `scale` in [kMinArrivalScale, kMaxArrivalScale]; 1 returns `inner` itself.
std::unique_ptr<JobSource> with_arrival_scale(std::unique_ptr<JobSource> inner, double scale);

}  // namespace schedlab::workload
