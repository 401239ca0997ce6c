// Sweep files: `scenario:`, `grid:` (a map of key path -> list of values) and `seeds:`.
#include "sweep/sweep_spec.h"

#include <fmt/format.h>

#include <filesystem>

#include "config/scenario.h"
#include "util/yaml_util.h"
#include "util/error.h"

namespace schedlab::sweep {

namespace {
constexpr int kManifestVersion = 1;

// A grid value as the text --set parses: a scalar as written, a list or map in flow style.
std::string value_text(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  YAML::Emitter e;
  e << YAML::Flow << node;
  return e.c_str();
}
}  // namespace

SweepSpec load_sweep(const std::string& path) {
  using namespace config;
  SweepSpec spec;
  spec.file = std::filesystem::absolute(path).lexically_normal().string();
  const YAML::Node root = util::load_yaml_file(path);
  return util::with_yaml_errors(path, [&] {
    util::At at{path, ""};
    util::require_map(root, at);
    util::check_keys(root, {"scenario", "grid", "seeds"}, at);
    if (!root["scenario"]) util::fail(root, at / "scenario", "required key is missing (the base scenario's file)");
    spec.scenario =
        std::filesystem::absolute(util::resolve_path(path, util::get_string(root["scenario"], at / "scenario")))
            .lexically_normal()
            .string();
    util::require_file(spec.scenario, root["scenario"], at / "scenario");
    // The base scenario must load as it is: its own mistakes are reported in its own file.
    const auto base = load_scenario(spec.scenario);
    if (const auto& g = root["grid"]) {
      util::require_map(g, at / "grid");
      for (const auto& kv : g) {
        GridAxis axis;
        axis.key = util::key_of(kv.first, at / "grid");
        axis.line = util::line_of(kv.first);
        const util::At vat = at / "grid" / axis.key;
        if (!kv.second.IsSequence() || kv.second.size() == 0)
          util::fail(kv.second, vat, "expected a list of one or more values, e.g. [best-fit, rack-pack]");
        if (axis.key == "seed") util::fail(kv.first, vat, "give seeds in `seeds:`, not in the grid");
        for (const auto& v : kv.second) axis.values.push_back(value_text(v));
        for (std::size_t i = 0; i < axis.values.size(); ++i) {
          try {
            load_scenario(spec.scenario, {axis.key + "=" + axis.values[i]});
          } catch (const util::InputError& e) {
            throw util::InputError(path, util::line_of(kv.second[i]), vat.path,
                                   fmt::format("value '{}' does not fit the scenario: {}", axis.values[i], e.what()));
          }
        }
        spec.grid.push_back(std::move(axis));
      }
    }
    if (const auto& s = root["seeds"]) {
      if (!s.IsSequence() || s.size() == 0)
        util::fail(s, at / "seeds", "expected a list of one or more seeds, e.g. [1, 2, 3]");
      for (std::size_t i = 0; i < s.size(); ++i)
        spec.seeds.push_back(util::get_int_in<std::uint64_t>(s[i], at / "seeds" / std::to_string(i), 0));
    } else {
      spec.seeds = {base.seed};
    }
    std::size_t n = spec.seeds.size();
    for (const auto& a : spec.grid) {
      if (n > kMaxCells / a.values.size())
        util::fail(root["grid"], at / "grid", fmt::format("expands to more than {} cells", kMaxCells));
      n *= a.values.size();
    }
    return spec;
  });
}

std::size_t cell_count(const SweepSpec& spec) {
  std::size_t n = spec.seeds.size();
  for (const auto& a : spec.grid) n *= a.values.size();
  return n;
}

SweepCell cell_at(const SweepSpec& spec, std::size_t index) {
  SweepCell c;
  c.index = index;
  std::size_t rest = index;
  c.seed = spec.seeds[rest % spec.seeds.size()];
  rest /= spec.seeds.size();
  c.values.resize(spec.grid.size());
  for (std::size_t a = spec.grid.size(); a-- > 0;) {
    const auto& values = spec.grid[a].values;
    c.values[a] = values[rest % values.size()];
    rest /= values.size();
  }
  return c;
}

std::vector<std::string> cell_sets(const SweepSpec& spec, const SweepCell& cell) {
  std::vector<std::string> sets;
  for (std::size_t a = 0; a < spec.grid.size(); ++a) sets.push_back(spec.grid[a].key + "=" + cell.values[a]);
  return sets;
}

std::string cell_name(std::size_t index) { return fmt::format("cell-{:06}", index); }

nlohmann::json to_json(const SweepSpec& spec) {
  nlohmann::json grid = nlohmann::json::array();
  for (const auto& a : spec.grid) grid.push_back({{"key", a.key}, {"values", a.values}, {"line", a.line}});
  return {{"version", kManifestVersion}, {"sweep_file", spec.file}, {"scenario", spec.scenario},
          {"grid", grid},                {"seeds", spec.seeds},     {"cells", cell_count(spec)}};
}

SweepSpec sweep_from_json(const nlohmann::json& j, const std::string& file) {
  try {
    if (j.at("version").get<int>() != kManifestVersion)
      throw util::InputError(
          file, 0, "version",
          fmt::format("{} is not {}: written by another schedlab version", j.at("version").dump(), kManifestVersion));
    SweepSpec spec;
    spec.file = j.at("sweep_file").get<std::string>();
    spec.scenario = j.at("scenario").get<std::string>();
    for (const auto& a : j.at("grid")) {
      GridAxis axis{a.at("key").get<std::string>(), a.at("values").get<std::vector<std::string>>(),
                    a.at("line").get<long>()};
      if (axis.values.empty()) throw util::InputError(file, 0, "grid", "an axis without values");
      spec.grid.push_back(std::move(axis));
    }
    spec.seeds = j.at("seeds").get<std::vector<std::uint64_t>>();
    if (spec.seeds.empty()) throw util::InputError(file, 0, "seeds", "empty");
    std::size_t n = spec.seeds.size();
    for (const auto& a : spec.grid) {
      if (n > kMaxCells / a.values.size()) throw util::InputError(file, 0, "grid", "too many cells");
      n *= a.values.size();
    }
    return spec;
  } catch (const nlohmann::json::exception& e) {
    throw util::InputError(file, 0, "", fmt::format("not a sweep manifest: {}", e.what()));
  }
}

}  // namespace schedlab::sweep
