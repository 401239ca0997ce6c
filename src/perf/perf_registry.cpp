// The list of perf models.
#include "perf/perf_registry.h"

#include "perf/placement_model.h"
#include "util/error.h"
#include "util/suggest.h"

namespace schedlab::perf {

const std::vector<PerfModelInfo>& perf_models() {
  static const std::vector<PerfModelInfo> list = {
      {"trace", "every job runs as long as its trace says, wherever it is placed"},
      {"none", "another name for trace: no training model, trace durations kept"},
      {"placement", "iteration time of a training model (configs/models.yaml) on the placement: slowest GPU + "
                    "ring/hierarchical/tree/ps allreduce over the links crossed, shared max-min fairly"},
  };
  return list;
}

namespace {
std::unique_ptr<PerfModel> build(const std::string& name, const std::map<std::string, std::string>& args,
                                 const std::string& scenario_file, const cluster::Topology& topo, std::uint64_t seed) {
  if (name == "trace" || name == "none") {
    if (!args.empty())
      throw InputError(scenario_file, 0, "perf." + args.begin()->first, "the '" + name + "' model takes no settings");
    return make_trace_rate_model();
  }
  if (name == "placement") return make_placement_model(parse_placement_settings(args, scenario_file, topo, seed), topo);
  std::vector<std::string> names;
  for (const auto& m : perf_models()) names.push_back(m.name);
  throw InputError(scenario_file, 0, "perf.model", unknown_name_message("perf model", name, names));
}
}  // namespace

std::unique_ptr<PerfModel> make_perf_model(const std::string& name, const std::map<std::string, std::string>& args,
                                           const std::string& scenario_file, const cluster::Topology& topo,
                                           std::uint64_t seed, const std::map<std::string, long>& lines) {
  try {
    return build(name, args, scenario_file, topo, seed);
  } catch (const InputError& e) {
    // The models see their settings as plain strings; the line comes from the scenario.
    if (e.line() != 0 || e.file() != scenario_file || e.field().rfind("perf.", 0) != 0) throw;
    auto it = lines.find(e.field().substr(5));
    if (it == lines.end() || it->second <= 0) throw;
    std::string what = e.what();
    std::string prefix = scenario_file + ": " + e.field() + ": ";
    throw InputError(scenario_file, it->second, e.field(), what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what);
  }
}

}  // namespace schedlab::perf
