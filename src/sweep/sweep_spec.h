// A study as a grid: a sweep file names a base scenario, a grid over scenario keys (the dotted
// paths and YAML values of `--set`) and a list of seeds. It expands to cells, one scenario run
// each, numbered in a fixed order (the grid's keys in file order, the last varying fastest,
// seeds innermost), so that a cell's index means the same run on every machine: Slurm's array
// task ids are these indexes. The expanded sweep is written into the sweep's folder as
// sweep.json, which `sweep run-cell` and `sweep collect` read back without the sweep file.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace schedlab::sweep {

// A sweep above this many cells is refused unless forced: a typo in a grid (a range pasted
// as a list of thousands) should not start thousands of runs.
inline constexpr std::size_t kMaxCellsUnforced = 2000;
// The most a sweep may hold, forced or not (cell folders are numbered with 6 digits).
inline constexpr std::size_t kMaxCells = 999'999;

struct GridAxis {
  std::string key;                  // a scenario key path, as --set takes it
  std::vector<std::string> values;  // each as YAML text (a scalar, or a flow list or map)
  long line = 0;                    // in the sweep file
};

struct SweepSpec {
  std::string file;      // the sweep file (absolute)
  std::string scenario;  // the base scenario (absolute)
  std::vector<GridAxis> grid;
  std::vector<std::uint64_t> seeds;
};

struct SweepCell {
  std::size_t index = 0;
  std::vector<std::string> values;  // one per grid axis
  std::uint64_t seed = 1;
};

// Reads and checks a sweep file: every value of every axis is tried on the base scenario
// (alone), so that a bad value is reported at its line in the sweep file before anything
// runs. Throws InputError.
SweepSpec load_sweep(const std::string& path);

std::size_t cell_count(const SweepSpec& spec);
SweepCell cell_at(const SweepSpec& spec, std::size_t index);
// "key=value" overrides of a cell, for config::load_scenario.
std::vector<std::string> cell_sets(const SweepSpec& spec, const SweepCell& cell);
// "cell-000042".
std::string cell_name(std::size_t index);

nlohmann::json to_json(const SweepSpec& spec);
// Throws InputError naming `file` when the manifest is not one this version wrote.
SweepSpec sweep_from_json(const nlohmann::json& j, const std::string& file);

}  // namespace schedlab::sweep
