// The list of perf models.
#include "perf/perf_registry.h"

#include "perf/placement_model.h"
#include "util/error.h"

namespace schedlab::perf {

namespace {
// The trace model under its name: it takes no settings.
PerfModelFactory trace_model(std::string name) {
  return [name](const PerfModelInputs& in) {
    if (!in.args.empty()) {
      const auto& [key, value] = *in.args.values.begin();
      throw util::InputError(in.args.file, value.line, "perf." + key, "the '" + name + "' model takes no settings");
    }
    return make_trace_rate_model();
  };
}
}  // namespace

const util::Registry<PerfModelFactory>& perf_models() {
  static const util::Registry<PerfModelFactory> list = [] {
    util::Registry<PerfModelFactory> r("perf model");
    r.add("trace", "every job runs as long as its trace says, wherever it is placed", trace_model("trace"));
    r.add("none", "another name for trace: no training model, trace durations kept", trace_model("none"));
    r.add("placement",
          "iteration time of a training model (configs/models.yaml) on the placement: slowest GPU + "
          "ring/hierarchical/tree/ps allreduce over the links crossed, shared max-min fairly",
          [](const PerfModelInputs& in) {
            return make_placement_model(parse_placement_settings(in.args, in.scenario_file, in.topo, in.seed), in.topo,
                                        in.notices);
          });
    return r;
  }();
  return list;
}

std::unique_ptr<PerfModel> make_perf_model(const std::string& name, const util::NamedArgs& args,
                                           const std::string& scenario_file, const cluster::Topology& topo,
                                           std::uint64_t seed, long model_line, util::Notices* notices) {
  const auto* entry = perf_models().find(name);
  if (!entry)
    throw util::InputError(scenario_file, model_line, "perf.model",
                           util::unknown_name_message(perf_models().kind(), name, perf_models().names()));
  // Settings given without a file (tests, the command line) are the scenario's, for messages.
  if (args.file.empty() && !scenario_file.empty()) {
    util::NamedArgs located = args;
    located.file = scenario_file;
    return entry->make(PerfModelInputs{located, scenario_file, topo, seed, notices});
  }
  return entry->make(PerfModelInputs{args, scenario_file, topo, seed, notices});
}

}  // namespace schedlab::perf
