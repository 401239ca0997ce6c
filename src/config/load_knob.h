// The workload's load knob: `workload.arrival_scale: S` (every gap between submissions times S)
// or `workload.load: X` (X times the trace's GPU demand per day, that is arrival_scale 1/X);
// the two are exclusive (docs/workloads.md).
#pragma once

#include <yaml-cpp/yaml.h>

#include "config/scenario.h"
#include "util/yaml_util.h"

namespace schedlab::config {

// Reads either key of `w` (the scenario's `workload:` map) into out.arrival_scale (and out.load);
// InputError at the line of `load:` when both are given, or at a value out of range.
void read_load_knob(const YAML::Node& w, const util::At& wat, WorkloadConfig& out);

}  // namespace schedlab::config
