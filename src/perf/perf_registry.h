// Perf models by name (`perf.model` in a scenario), in one visible list.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "perf/perf_model.h"

namespace schedlab::perf {

struct PerfModelInfo {
  std::string name;
  std::string help;
};

const std::vector<PerfModelInfo>& perf_models();

// Builds the named model; `args` are the scenario's other `perf:` keys, `scenario_file`
// anchors relative paths in them, `lines` gives each key's line for error messages.
// Throws InputError (scenario_file:line: perf.key: ...) for unknown names or bad args.
std::unique_ptr<PerfModel> make_perf_model(const std::string& name, const std::map<std::string, std::string>& args,
                                           const std::string& scenario_file, const cluster::Topology& topo,
                                           std::uint64_t seed, const std::map<std::string, long>& lines = {});

}  // namespace schedlab::perf
