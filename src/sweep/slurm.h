// A sweep as Slurm job arrays, the HPC way to spread a grid over a cluster, shaped as sites run
// Slurm: the cells not done yet are dealt to array tasks, several cells to a task (so that a
// task runs for seconds, not milliseconds), and the tasks to as many array jobs as the site's
// MaxArraySize needs. sweep.sbatch lists the cells and runs `schedlab sweep run-cell DIR CELL`
// for each cell of its task; a last job, dependent on every array (afterany), runs `schedlab
// sweep collect`. Site options (account, QoS, memory, constraints) pass through to sbatch.
// The job ids are kept in DIR/slurm.json for `sweep status`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sweep/sweep_folder.h"

namespace schedlab::sweep {

struct SlurmOptions {
  std::string partition;        // "" = the cluster's default
  std::string time;             // per cell, as sbatch takes it ("00:30:00"); "" = the partition's
  std::size_t max_running = 0;  // array tasks running at once, per array job (%K); 0 = no limit
  std::size_t cells_per_task = 0;        // 0 = chosen by timing one cell here
  std::vector<std::string> sbatch_args;  // passed to every sbatch (e.g. --account=A, --qos=Q, --mem=4G)
};

// Slurm's default MaxArraySize (slurm.conf): array indices run from 0 to MaxArraySize - 1.
inline constexpr std::size_t kDefaultMaxArraySize = 1001;

// Which cells each array task runs and how the tasks split into array jobs.
struct SlurmPlan {
  struct Array {
    std::size_t first_task = 0, tasks = 0;  // array indices 0..tasks-1 run tasks first_task.. on
  };
  std::vector<std::size_t> cells;  // the cells not done yet, in order
  std::size_t cells_per_task = 1;
  std::size_t tasks = 0;  // ceil(cells / cells_per_task)
  std::vector<Array> arrays;
};
SlurmPlan plan_slurm(std::vector<std::size_t> cells, std::size_t cells_per_task, std::size_t max_array_size);

// A Slurm time limit ("MM", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS") times `n`, as
// "D-HH:MM:SS": a task of n cells gets n cells' time. Throws InputError naming `option`.
std::string scale_slurm_time(const std::string& per_cell, std::size_t n, const std::string& option = "--time");

// An --sbatch-arg as sbatch takes it on a line of its own; throws InputError for one it cannot
// (not an option, whitespace or control bytes, or one schedlab sets itself: --array, --output).
void check_sbatch_arg(const std::string& arg);

// A word as the shell reads it back unchanged ('it'\''s').
std::string shell_quote(const std::string& word);

std::string sbatch_script(const SlurmOptions& o, const std::string& self_exe, const std::string& dir,
                          const SlurmPlan& plan);

// MaxArraySize from `scontrol show config`; kDefaultMaxArraySize when Slurm cannot be asked
// (then `said` explains).
std::size_t site_max_array_size(std::string& said);

struct SlurmJobs {
  std::vector<std::string> array_jobs;
  std::string collect_job;
};

// Writes DIR/sweep.sbatch and, unless `dry_run`, submits its array jobs and the collect job with
// sbatch. Throws EnvironmentError when sbatch is missing or refuses (naming any array already
// submitted). Returns the job ids (none on a dry run).
SlurmJobs submit_to_slurm(const SlurmOptions& o, const std::string& self_exe, const SweepFolder& folder,
                          const SlurmPlan& plan, bool dry_run);

// Array tasks Slurm holds for this sweep now (from DIR/slurm.json and squeue); nullopt when
// the sweep was not submitted or squeue cannot be asked.
struct SlurmQueue {
  std::size_t running = 0, pending = 0;
  std::string array_jobs;  // "101,102"
};
std::optional<SlurmQueue> slurm_queue(const SweepFolder& folder);

}  // namespace schedlab::sweep
