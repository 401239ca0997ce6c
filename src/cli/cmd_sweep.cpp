// `schedlab sweep`: a grid of runs on this machine (one process per cell), and the pieces a
// cluster's scheduler runs instead: `run-cell` (one cell), `status` and `collect`.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <thread>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/number_option.h"
#include "emu/controller/emulation.h"
#include "sweep/slurm.h"
#include "sweep/sweep_collect.h"
#include "sweep/sweep_folder.h"
#include "sweep/sweep_runner.h"
#include "sweep/sweep_seeds.h"
#include "util/error.h"
#include "util/notice.h"
#include "util/suggest.h"

namespace schedlab::cli {

namespace {
std::string grid_shape(const sweep::SweepSpec& spec) {
  std::string s;
  for (const auto& a : spec.grid) s += fmt::format("{} x ", a.values.size());
  return fmt::format("{}{} seed(s)", s, spec.seeds.size());
}

void print_collected(const sweep::SweepSpec& spec, const sweep::SweepFolder& folder, const sweep::Collected& c) {
  fmt::print("{}", sweep::format_collected(spec, c));
  if (!c.missing.empty())
    fmt::print("{} of {} cells have no results yet (first: {}); the figures are over the others\n", c.missing.size(),
               c.cells, sweep::cell_name(c.missing.front()));
  fmt::print("collected: {}/sweep.csv, {}/sweep-summary.csv\n", folder.dir, folder.dir);
}
}  // namespace

void add_sweep_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("sweep", "Run a grid of scenario variants over seeds (a sweep file: scenario, "
                                          "grid, seeds), one results folder per cell; resumes where it stopped");
  cmd->require_subcommand(0, 1);
  auto file = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto jobs = std::make_shared<unsigned>(0);
  auto force = std::make_shared<bool>(false);
  cmd->add_option("sweep_file", *file, "The sweep file (YAML)")->type_name("SWEEP.yaml");
  cmd->add_option("-o,--out", *out, "The sweep's folder (default: results/<sweep file name>); rerunning with the "
                                    "same folder resumes");
  add_number_option(cmd, "-j,--jobs", *jobs, "Cells run at once (default: number of cores)");
  cmd->add_flag("--force", *force, fmt::format("Run a sweep of more than {} cells", sweep::kMaxCellsUnforced));
  auto quiet = std::make_shared<bool>(false);
  cmd->add_flag("-q,--quiet", *quiet, "No progress line on the terminal, no notices");
  auto slurm = std::make_shared<bool>(false);
  auto dry_run = std::make_shared<bool>(false);
  auto slurm_opts = std::make_shared<sweep::SlurmOptions>();
  cmd->add_flag("--slurm", *slurm, "Submit the cells not done yet as a Slurm job array (sweep.sbatch), and a "
                                   "dependent job that collects them");
  cmd->add_option("--partition", slurm_opts->partition, "With --slurm: the partition");
  cmd->add_option("--time", slurm_opts->time, "With --slurm: each cell's time limit, as sbatch takes it");
  add_number_option(cmd, "--max-running", slurm_opts->max_running,
                    "With --slurm: array tasks running at once, per array job (%K)");
  add_number_option(cmd, "--cells-per-task", slurm_opts->cells_per_task,
                    "With --slurm: cells each array task runs (default: one cell is timed here first, and tasks "
                    "get enough cells to run about 10 s)");
  cmd->add_option("--sbatch-arg", slurm_opts->sbatch_args,
                  "With --slurm: an sbatch option for every job, as --name=value (repeatable: --account, --qos, "
                  "--mem, --constraint, --gres, ...)");
  cmd->add_flag("--dry-run", *dry_run, "With --slurm: write sweep.sbatch, submit nothing");

  auto dir = std::make_shared<std::string>();
  auto index = std::make_shared<std::size_t>(0);
  auto* run_cell = cmd->add_subcommand("run-cell", "Run one cell of a prepared sweep folder (what each Slurm array "
                                                   "task runs)");
  run_cell->add_option("dir", *dir, "The sweep's folder")->required();
  add_number_option(run_cell, "index", *index, "The cell's index (0 to cells - 1)")->required();
  run_cell->callback([dir, index, &exit_code] {
    const auto spec = sweep::read_folder(*dir);
    util::Notices notices;
    sweep::run_cell(spec, sweep::SweepFolder{*dir}, *index, notices);
    exit_code = 0;
  });

  auto* status = cmd->add_subcommand("status", "Count a sweep's cells: done, running, failed, missing");
  status->add_option("dir", *dir, "The sweep's folder")->required();
  status->callback([dir, &exit_code] {
    const auto spec = sweep::read_folder(*dir);
    const sweep::SweepFolder folder{*dir};
    const auto s = sweep::folder_status(spec, folder);
    fmt::print("{}: {} cells: {} done, {} running, {} failed, {} missing\n", *dir, s.cells, s.done, s.running,
               s.failed, s.missing);
    if (const auto q = sweep::slurm_queue(folder))
      fmt::print("slurm array job(s) {}: {} task(s) running, {} pending\n", q->array_jobs, q->running, q->pending);
    for (std::size_t i = 0, shown = 0; i < s.cells && shown < 10; ++i)
      if (folder.failed(i)) {
        ++shown;
        fmt::print("  failed {}: {}\n", sweep::cell_name(i), folder.why_failed(i));
      }
    exit_code = 0;
  });

  auto* collect = cmd->add_subcommand("collect", "Gather a sweep's cells into sweep.csv (tidy) and "
                                                 "sweep-summary.csv (mean, sd, 95% CI over seeds)");
  collect->add_option("dir", *dir, "The sweep's folder")->required();
  auto format = std::make_shared<std::string>("text");
  add_format_option(collect, *format);
  collect->callback([dir, format, &exit_code] {
    const auto spec = sweep::read_folder(*dir);
    const sweep::SweepFolder folder{*dir};
    const auto c = sweep::collect(spec, folder);
    if (*format == "json") {
      // sweep-summary.csv's rows as objects, the grid keys by name.
      nlohmann::ordered_json rows = nlohmann::ordered_json::array();
      for (const auto& p : c.summary) {
        nlohmann::ordered_json row;
        for (std::size_t a = 0; a < spec.grid.size(); ++a) row[spec.grid[a].key] = p.values[a];
        row["metric"] = p.metric;
        row["n"] = p.stats.n;
        row["mean"] = p.stats.mean;
        row["sd"] = p.stats.sd;
        row["ci95_low"] = p.stats.mean - p.stats.ci95;
        row["ci95_high"] = p.stats.mean + p.stats.ci95;
        rows.push_back(std::move(row));
      }
      const nlohmann::ordered_json doc{{"cells", c.cells}, {"cells_with_results", c.read}, {"summary", rows}};
      fmt::print("{}\n", doc.dump(2));
    } else {
      print_collected(spec, folder, c);
    }
    exit_code = 0;
  });

  cmd->callback([cmd, file, out, jobs, force, quiet, slurm, dry_run, slurm_opts, &exit_code] {
    if (!cmd->get_subcommands().empty()) return;
    if (file->empty()) throw util::InputError("sweep: give a sweep file, or one of run-cell, status, collect");
    const auto spec = sweep::load_sweep(*file);
    const std::size_t cells = sweep::cell_count(spec);
    if (cells > sweep::kMaxCellsUnforced && !*force)
      throw util::InputError(*file, 0, "grid",
                             fmt::format("expands to {} cells ({}), more than {}: add --force to run them all", cells,
                                         grid_shape(spec), sweep::kMaxCellsUnforced));
    const std::string target =
        out->empty() ? "results/" + std::filesystem::path(*file).stem().string() : *out;
    if (!*slurm && (*dry_run || !slurm_opts->partition.empty() || !slurm_opts->time.empty() ||
                    slurm_opts->max_running || slurm_opts->cells_per_task || !slurm_opts->sbatch_args.empty()))
      throw util::InputError(
          "--partition, --time, --max-running, --cells-per-task, --sbatch-arg and --dry-run go with --slurm");
    if (*slurm) {  // refused before any folder is made
      for (const auto& arg : slurm_opts->sbatch_args) sweep::check_sbatch_arg(arg);
      if (!slurm_opts->time.empty()) (void)sweep::scale_slurm_time(slurm_opts->time, 1);
    }
    const auto folder = sweep::prepare_folder(spec, target);
    {
      util::Notices expansion(*quiet);  // what the grid itself says, once, before any cell runs
      if (auto same = sweep::seeds_without_effect(spec)) expansion.say(*same);
    }
    if (*slurm) {
      std::vector<std::size_t> todo;
      for (std::size_t i = 0; i < cells; ++i)
        if (!folder.done(i)) todo.push_back(i);
      std::string how_many;
      if (slurm_opts->cells_per_task == 0) {
        // Cells of milliseconds, one per array task, would cost Slurm more than the work: one
        // cell is run here (at most 5 s; it stays done) and tasks get about 10 s of cells.
        slurm_opts->cells_per_task = 1;
        if (!todo.empty()) {
          util::Notices timing(true);
          const std::size_t timed = todo.front();
          const auto seconds = sweep::time_one_cell(spec, folder, timed, timing, std::chrono::seconds(5));
          if (seconds) {
            todo.erase(todo.begin());
            slurm_opts->cells_per_task = static_cast<std::size_t>(std::clamp(
                std::ceil(10.0 / std::max(*seconds, 1e-3)), 1.0, static_cast<double>(std::max<std::size_t>(1, todo.size()))));
            how_many = fmt::format(" (cell {} took {:.3f} s here: {} per task, about {:.1f} s a task)",
                                   sweep::cell_name(timed), *seconds,
                                   slurm_opts->cells_per_task, *seconds * static_cast<double>(slurm_opts->cells_per_task));
          } else {
            how_many = " (a cell ran past 5 s here, or failed: one per task)";
          }
        }
      }
      std::string said;
      const std::size_t max_array = sweep::site_max_array_size(said);
      if (!said.empty()) util::Notices(*quiet).say(said);
      const auto plan = sweep::plan_slurm(todo, slurm_opts->cells_per_task, max_array);
      const auto ids = sweep::submit_to_slurm(*slurm_opts, emu::self_executable(), folder, plan, *dry_run);
      fmt::print("sweep {}: {} cells ({}), {} not done: {}/sweep.sbatch\n", *file, cells, grid_shape(spec),
                 todo.size(), folder.dir);
      fmt::print("{} cell(s) per array task{}; {} task(s) in {} array job(s) (MaxArraySize {})\n",
                 plan.cells_per_task, how_many, plan.tasks, plan.arrays.size(), max_array);
      if (!ids.array_jobs.empty())
        fmt::print("submitted: array job(s) {}{}, collect job {} after them; `schedlab sweep status {}`\n",
                   util::join(ids.array_jobs, ", "),
                   slurm_opts->max_running ? fmt::format(" (at most {} tasks running each)", slurm_opts->max_running)
                                           : std::string(),
                   ids.collect_job, folder.dir);
      exit_code = 0;
      return;
    }
    const unsigned width = *jobs ? *jobs : std::max(1u, std::thread::hardware_concurrency());
    fmt::print("sweep {}: {} cells ({}), {} at a time\n", *file, cells, grid_shape(spec), width);
    std::fflush(stdout);
    util::Notices notices(*quiet);  // each cell, a fork, says its notices to its copy
    const bool tty = !*quiet && ::isatty(STDERR_FILENO);
    const auto t0 = std::chrono::steady_clock::now();
    const auto report = sweep::run_local(spec, folder, width, notices, [tty, t0](std::size_t n,
                                                                                              std::size_t of) {
      if (!tty) return;
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      fmt::print(stderr, "\r\033[K{} of {} cells ended, {:.1f} s, about {:.0f} s left", n, of, wall,
                 wall / static_cast<double>(n) * static_cast<double>(of - n));
    });
    if (tty && report.ran > 0) fmt::print(stderr, "\n");
    fmt::print("{} cells: {} run now, {} done before, {} failed\n", report.cells, report.ran, report.skipped,
               report.failures.size());
    int code = 0;
    for (const auto& f : report.failures) {
      fmt::print("  failed {}: {}\n", sweep::cell_name(f.index), f.why);
      code = std::max(code, f.exit_code == 2 ? 2 : 3);
    }
    print_collected(spec, folder, sweep::collect(spec, folder));
    fmt::print("results: {}/ (cells/, cells.csv, sweep.csv, sweep-summary.csv)\n", folder.dir);
    exit_code = code;
  });
}

}  // namespace schedlab::cli
