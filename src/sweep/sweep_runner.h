// Runs a sweep's cells on this machine: one process per cell, a fork of the sweep that runs
// the cell as `schedlab sweep run-cell DIR INDEX` would (without starting the program
// again), at most `jobs` at once; cells already done are skipped, so a rerun after an
// interruption (even kill -9: the cells' processes die with the sweep) finishes the rest. A
// failing cell does not stop the others.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sweep/sweep_folder.h"

namespace schedlab::sweep {

struct CellFailure {
  std::size_t index = 0;
  std::string why;  // the cell's error, or how its process ended
  int exit_code = 0;
};

struct SweepReport {
  std::size_t cells = 0, skipped = 0, ran = 0;
  std::vector<CellFailure> failures;  // in index order
};

// `progress` is called after each cell ends with (cells ended so far, cells to run). Each cell,
// a fork, says its notices to its copy of `notices`.
SweepReport run_local(const SweepSpec& spec, const SweepFolder& folder, unsigned jobs, util::Notices& notices,
                      const std::function<void(std::size_t, std::size_t)>& progress = {});

// Runs cell `index` here as run_local would, for at most `limit`: its wall seconds when it ends
// done, nullopt when it failed or ran past the limit (then it is stopped and left not done).
// What a Slurm submission times to choose its cells per array task.
std::optional<double> time_one_cell(const SweepSpec& spec, const SweepFolder& folder, std::size_t index,
                                    util::Notices& notices, std::chrono::milliseconds limit);

struct SweepStatus {
  std::size_t cells = 0, done = 0, failed = 0, running = 0, missing = 0;
};
// From the folder alone: a cell is running while a live process writes its staging folder.
SweepStatus folder_status(const SweepSpec& spec, const SweepFolder& folder);

}  // namespace schedlab::sweep
