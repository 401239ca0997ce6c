// A sweep as a Slurm job array, the HPC way to spread a grid over a cluster: sweep.sbatch runs
// `schedlab sweep run-cell DIR $SLURM_ARRAY_TASK_ID` for each cell not done yet (at most K at
// once), and a second job, dependent on the array (afterany), runs `schedlab sweep collect`.
// The job ids are kept in DIR/slurm.json for `sweep status`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sweep/sweep_folder.h"

namespace schedlab::sweep {

struct SlurmOptions {
  std::string partition;      // "" = the cluster's default
  std::string time;           // per cell, as sbatch takes it ("00:30:00"); "" = the partition's
  std::size_t max_running = 0;  // 0 = no limit
};

// "0-3,5,7-9" for {0,1,2,3,5,7,8,9}; the cells must be sorted.
std::string array_ranges(const std::vector<std::size_t>& cells);

// A word as the shell reads it back unchanged ('it'\''s').
std::string shell_quote(const std::string& word);

std::string sbatch_script(const SlurmOptions& o, const std::string& self_exe, const std::string& dir,
                          const std::vector<std::size_t>& cells);

struct SlurmJobs {
  std::string array_job, collect_job;
};

// Writes DIR/sweep.sbatch and, unless `dry_run`, submits it and the collect job with sbatch.
// Throws EnvironmentError when sbatch is missing or refuses. Returns the job ids (empty on a dry run).
SlurmJobs submit_to_slurm(const SlurmOptions& o, const std::string& self_exe, const SweepFolder& folder,
                          const std::vector<std::size_t>& cells, bool dry_run);

// Array tasks Slurm holds for this sweep now (from DIR/slurm.json and squeue); nullopt when
// the sweep was not submitted or squeue cannot be asked.
struct SlurmQueue {
  std::size_t running = 0, pending = 0;
  std::string array_job;
};
std::optional<SlurmQueue> slurm_queue(const SweepFolder& folder);

}  // namespace schedlab::sweep
