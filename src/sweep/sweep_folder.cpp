// Sweep folders: created once, resumed by anyone holding the same sweep.
#include "sweep/sweep_folder.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "config/scenario.h"
#include "util/yaml_util.h"
#include "run/packing_run.h"
#include "run/scenario_run.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/input_limits.h"
#include "util/json_read.h"
#include "util/staging_dir.h"

namespace schedlab::sweep {

namespace fs = std::filesystem;

bool SweepFolder::done(std::size_t i) const { return util::is_results_folder(cell_dir(i)); }

std::string SweepFolder::why_failed(std::size_t i) const {
  // Its first line, at most a line's bound of it. (Not through FileBytes, which would note the
  // file as an input of the run, and a resumed sweep rewrites it.)
  std::ifstream in(cell_error(i), std::ios::binary);
  std::string line;
  for (char c; line.size() < util::kMaxLineBytes && in.get(c) && c != '\n';) line += c;
  return line;
}

bool SweepFolder::failed(std::size_t i) const {
  std::error_code ec;
  return !done(i) && fs::is_regular_file(cell_error(i), ec);
}

SweepFolder prepare_folder(const SweepSpec& spec, const std::string& dir, const std::string& option) {
  SweepFolder folder{dir};
  std::error_code ec;
  const nlohmann::json manifest = to_json(spec);
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) throw util::InputError(dir, 0, option, "exists and is not a folder");
    if (fs::exists(dir + "/" + kSweepMarker, ec)) {
      nlohmann::json old;
      try {
        old = util::parse_json(util::read_config_file(folder.manifest()));
      } catch (const util::JsonReadError&) {
      }
      if (old != manifest)
        throw util::InputError(
            dir, 0, option, "holds another sweep (another scenario, grid or seeds): give another --out, or remove it");
      return folder;  // the same sweep: resume it
    }
    if (!fs::is_empty(dir, ec))
      throw util::InputError(dir, 0, option, "is not empty and not a sweep folder: give a new or empty folder");
  }
  fs::create_directories(dir + "/cells", ec);
  if (ec) throw util::EnvironmentError(fmt::format("{}: cannot create: {}", dir, ec.message()));
  util::write_staged(folder.manifest(), manifest.dump(2) + "\n");
  std::string csv = "cell,index,seed";
  for (const auto& a : spec.grid) csv += "," + util::csv_field(a.key);
  csv += "\n";
  for (std::size_t i = 0; i < cell_count(spec); ++i) {
    const auto c = cell_at(spec, i);
    csv += fmt::format("{},{},{}", cell_name(i), i, c.seed);
    for (const auto& v : c.values) csv += "," + util::csv_field(v);
    csv += "\n";
  }
  util::write_staged(dir + "/cells.csv", csv);
  // The marker last: a folder interrupted before it is an ordinary (empty-ish) folder again.
  util::write_staged(dir + "/" + kSweepMarker, fmt::format("schedlab {} sweep\n", SCHEDLAB_VERSION));
  return folder;
}

SweepSpec read_folder(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir + "/" + kSweepMarker, ec))
    throw util::InputError(dir, 0, "", "is not a sweep folder (no " + std::string(kSweepMarker) + ")");
  const std::string path = dir + "/sweep.json";
  nlohmann::json j;
  try {
    j = util::parse_json(util::read_config_file(path));
  } catch (const util::JsonReadError& e) {
    throw util::InputError(path, 0, "", fmt::format("not JSON: {}", e.what()));
  }
  return sweep_from_json(j, path);
}

void run_cell(const SweepSpec& spec, const SweepFolder& folder, std::size_t index, util::Notices& notices,
              util::ParsedYamlFiles* files) {
  if (index >= cell_count(spec))
    throw util::InputError(fmt::format("cell {}: the sweep has cells 0 to {}", index, cell_count(spec) - 1));
  const auto cell = cell_at(spec, index);
  try {
    auto scenario = config::load_scenario(spec.scenario, cell_sets(spec, cell), cell.seed, std::nullopt, files);
    if (scenario.workload.packing_mode)
      run::run_packing(scenario, notices, folder.cell_dir(index));
    else
      run::run_scenario(scenario, notices, folder.cell_dir(index));
    std::error_code ec;
    fs::remove(folder.cell_error(index), ec);
  } catch (const std::exception& e) {
    util::write_staged(folder.cell_error(index), std::string(e.what()) + "\n");
    throw;
  }
}

}  // namespace schedlab::sweep
