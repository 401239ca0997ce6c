// A sweep's folder: sweep.json (the expanded sweep), cells.csv (each cell's index, seed and
// grid values), and cells/cell-NNNNNN/ (each cell's results folder, written atomically like
// any run's, so a cell folder that exists is complete), cells/cell-NNNNNN.error (why a cell
// failed) and cells/cell-NNNNNN.log (its output). A cell is done when its results folder
// exists; rerunning a sweep runs the others.
#pragma once

#include <string>

#include "sweep/sweep_spec.h"
#include "util/notice.h"
#include "util/parsed_yaml_files.h"

namespace schedlab::sweep {

// Marks a folder as a sweep's: a sweep is written only into a new or empty folder, or one
// that holds the same sweep (it resumes), never over anything else.
inline constexpr const char* kSweepMarker = ".schedlab-sweep";

struct SweepFolder {
  std::string dir;
  std::string manifest() const { return dir + "/sweep.json"; }
  std::string cell_dir(std::size_t i) const { return dir + "/cells/" + cell_name(i); }
  std::string cell_error(std::size_t i) const { return cell_dir(i) + ".error"; }
  std::string cell_log(std::size_t i) const { return cell_dir(i) + ".log"; }
  bool done(std::size_t i) const;
  bool failed(std::size_t i) const;  // an error file and no results
  std::string why_failed(std::size_t i) const;  // the error file's first line ("" when none)
};

// Creates the folder for `spec`, or checks that it already holds the same sweep (throws
// InputError naming `option` otherwise), and writes sweep.json and cells.csv.
SweepFolder prepare_folder(const SweepSpec& spec, const std::string& dir, const std::string& option = "--out");

// Reads an existing sweep folder's manifest (InputError when it is not a sweep folder).
SweepSpec read_folder(const std::string& dir);

// Runs one cell in this process: its scenario with the cell's values and seed, results into
// its folder; on an input or environment error, writes the error file and rethrows. `files`:
// the sweep's parsed files when the cell is a fork of the local runner (null: parse them).
void run_cell(const SweepSpec& spec, const SweepFolder& folder, std::size_t index, util::Notices& notices,
              util::ParsedYamlFiles* files = nullptr);

}  // namespace schedlab::sweep
