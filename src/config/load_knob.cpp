// Reads `workload.arrival_scale` or `workload.load` (see load_knob.h).
#include "config/load_knob.h"

#include "workload/arrival_scale.h"

namespace schedlab::config {

void read_load_knob(const YAML::Node& w, const util::At& wat, WorkloadConfig& out) {
  if (w["arrival_scale"] && w["load"])
    fail(w["load"], wat / "load",
         "give either load (demand relative to the trace) or arrival_scale (its gaps multiplied), not both");
  if (w["arrival_scale"])
    out.arrival_scale = util::get_real_in(w["arrival_scale"], wat / "arrival_scale", workload::kMinArrivalScale,
                                          workload::kMaxArrivalScale);
  if (w["load"]) {
    // Load X divides every gap by X: the same GPU-hours over 1/X of the span, X times the
    // demand per day (workload/arrival_scale.h).
    out.load =
        util::get_real_in(w["load"], wat / "load", 1 / workload::kMaxArrivalScale, 1 / workload::kMinArrivalScale);
    out.arrival_scale = 1 / out.load;
  }
}

}  // namespace schedlab::config
