// Files every results folder has, whatever the mode wrote: one written whole or reported,
// and run.yaml (the scenario as resolved, with the seed and schedlab's version), which makes
// the run repeatable.
#pragma once

#include <functional>
#include <ostream>
#include <string>

#include "config/scenario.h"

namespace schedlab::run {

// Writes `path` with `body`; throws InputError when it cannot be written.
void write_file(const std::string& path, const std::function<void(std::ostream&)>& body);
void write_run_yaml(std::ostream& out, const config::Scenario& scenario);

}  // namespace schedlab::run
