// The scenario's measurement window: `metrics.window: [start_s, end_s]` (times on the run's
// clock) and `metrics.warmup_s: W` (left out at the start of the window); docs/metrics.md.
#pragma once

#include <yaml-cpp/yaml.h>

#include "metrics/measure_window.h"
#include "util/yaml_util.h"

namespace schedlab::config {

// Reads both keys of `m` (the scenario's `metrics:` map) into `out`; InputError at the line of
// a value out of range or a window that ends where it starts or before.
void read_measure_window(const YAML::Node& m, const util::At& mat, const std::string& path,
                         metrics::MeasureWindow& out);

}  // namespace schedlab::config
