// What draws from a scenario's seed: the generator, failure rates, the placement perf model's
// model mix, pools dealt by a seeded hash, the packing mode's shuffle, an external policy (its
// own draws are unknown). A scenario that uses none gives the same results under every seed:
// a sweep over seeds then repeats one run, and its spread over seeds is 0 by construction.
#pragma once

#include <string>
#include <vector>

#include "config/scenario.h"

namespace schedlab::run {

// The settings of `sc` that draw from its seed, by their scenario keys; empty for none.
std::vector<std::string> seed_uses(const config::Scenario& sc);

}  // namespace schedlab::run
