// Perf models by name (`perf.model` in a scenario), in one visible list (util/registry.h).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "perf/perf_model.h"
#include "util/named_args.h"
#include "util/notice.h"
#include "util/registry.h"

namespace schedlab::perf {

// What a perf model is built from: the scenario's other `perf:` keys (each with its line),
// the scenario file (relative paths in them are resolved against it), the cluster and the seed.
struct PerfModelInputs {
  const util::NamedArgs& args;
  const std::string& scenario_file;
  const cluster::Topology& topo;
  std::uint64_t seed;
  util::Notices* notices;  // where a model says what it falls back to (the run's); null: not said
};
using PerfModelFactory = std::function<std::unique_ptr<PerfModel>(const PerfModelInputs&)>;

const util::Registry<PerfModelFactory>& perf_models();

// Builds the named model. Throws InputError (scenario_file:line: perf.key: ...) for an unknown
// name (at `model_line`) or a bad setting (at its own line). `notices`: the run's (may be null).
std::unique_ptr<PerfModel> make_perf_model(const std::string& name, const util::NamedArgs& args,
                                           const std::string& scenario_file, const cluster::Topology& topo,
                                           std::uint64_t seed, long model_line = 0, util::Notices* notices = nullptr);

}  // namespace schedlab::perf
