// Whether a sweep's seeds can change its results: a grid point whose scenario draws nothing
// from its seed (a fixed trace, no generator, no failure rates, no seeded model mix or pool
// spread: run/seed_uses.h) gives the same numbers under every seed, so its "confidence
// interval" over seeds is 0 by construction, not a measured spread. Said once at expansion.
#pragma once

#include <optional>
#include <string>

#include "sweep/sweep_spec.h"

namespace schedlab::sweep {

// The notice for a sweep of more than one seed with grid points whose scenario draws nothing
// from its seed (all of them, or how many); nothing otherwise. Loads each grid point's scenario
// (once, the first seed's); a point that does not load is the cells' to report.
std::optional<std::string> seeds_without_effect(const SweepSpec& spec);

}  // namespace schedlab::sweep
