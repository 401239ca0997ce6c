// `schedlab plot DIR`: the right figure script for a run, compare or sweep folder, run with
// the machine's python3 and matplotlib. The scripts are embedded in the binary (generated
// plot_scripts.h), so the single binary plots without the repository beside it.
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include "cli/commands.h"
#include "plot_scripts.h"
#include "sweep/sweep_collect.h"
#include "sweep/sweep_folder.h"
#include "util/error.h"
#include "util/staging_dir.h"

namespace schedlab::cli {

namespace {
namespace fs = std::filesystem;

// Runs `python3 SCRIPT ARGS...` with this process's standard error (and standard output, unless
// `quiet`); its exit code.
int run_python(const std::string& script_text, const std::vector<std::string>& args, bool quiet = false) {
  std::string path = (fs::temp_directory_path() / "schedlab-plot-XXXXXX").string();
  const int fd = ::mkstemp(path.data());
  if (fd < 0)
    throw util::EnvironmentError(fmt::format("plot: cannot create a temporary file: {}", std::strerror(errno)));
  ::close(fd);
  {
    std::ofstream out(path, std::ios::binary);
    out << script_text;
    if (!out) throw util::EnvironmentError(fmt::format("plot: cannot write {}", path));
  }
  // Debian's python3 first: python3-matplotlib is installed for it, and a python3 earlier in
  // PATH (a virtual environment, pyenv) may lack matplotlib.
  std::error_code exists_ec;
  const std::string python = fs::exists("/usr/bin/python3", exists_ec) ? "/usr/bin/python3" : "python3";
  std::vector<std::string> argv{python, path};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> c_argv;
  for (auto& a : argv) c_argv.push_back(a.data());
  c_argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (quiet) {
      const int null = ::open("/dev/null", O_WRONLY);
      if (null >= 0) ::dup2(null, STDOUT_FILENO);
    }
    ::execvp(c_argv[0], c_argv.data());
    ::_exit(127);
  }
  int status = 0;
  if (pid > 0) ::waitpid(pid, &status, 0);
  std::error_code ec;
  fs::remove(path, ec);
  if (pid < 0) throw util::EnvironmentError(fmt::format("plot: fork: {}", std::strerror(errno)));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
// A compare folder of the packing mode: its variants' folders hold packing.csv.
bool packing_compare(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(fs::path(dir) / "compare.csv", ec)) return false;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_directory(ec) && fs::exists(entry.path() / "packing.csv", ec)) return true;
  return false;
}
// The figures a script writes for the PNG `png`: the PNG, the PDF beside it, and in both forms
// a compare's utilization figure and the pools figure of a run or compare.
std::vector<fs::path> figure_files(const fs::path& png) {
  const std::string stem = (png.parent_path() / png.stem()).string();
  return {png,
          fs::path(stem + ".pdf"),
          fs::path(stem + "-utilization.png"),
          fs::path(stem + "-utilization.pdf"),
          fs::path(stem + "-pools.png"),
          fs::path(stem + "-pools.pdf")};
}

// -o like --out: a PNG name, and no file in the figures' places that schedlab did not write
// (a PNG or PDF by its first bytes), nor an input.
void check_figure_target(const std::string& out) {
  const fs::path png(out);
  if (png.extension() != ".png")
    throw util::InputError(out, 0, "--out",
                           "the figure is a PNG file (a PDF is written beside it): give a name ending in .png");
  for (const fs::path& f : figure_files(png)) {
    std::error_code ec;
    const auto st = fs::symlink_status(f, ec);
    if (st.type() == fs::file_type::not_found) continue;
    if (st.type() != fs::file_type::regular)
      throw util::InputError(f.string(), 0, "--out", "exists and is not a file; give another name");
    const std::string magic = f.extension() == ".png" ? "\x89PNG" : "%PDF";
    std::ifstream in(f, std::ios::binary);
    std::string head(magic.size(), '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    if (fs::file_size(f, ec) > 0 && head != magic)
      throw util::InputError(f.string(), 0, "--out",
                             fmt::format("exists and is not a {} figure; remove it or give another name",
                                         f.extension() == ".png" ? "PNG" : "PDF"));
  }
}
}  // namespace

void add_plot_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("plot", "Draw a results folder's figures as PNG and PDF: a run's timeline; a "
                                         "compare's JCT and queueing-delay CDFs, JCT statistics and utilization per "
                                         "variant; a sweep's metrics against offered load with confidence bands");
  auto dir = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  cmd->add_option("dir", *dir, "A run, compare or sweep folder")->required();
  cmd->add_option("-o,--out", *out, "The PNG file (a PDF is written beside it; default: in the folder)");
  cmd->callback([dir, out, &exit_code] {
    std::error_code ec;
    const bool sweep_folder = fs::exists(fs::path(*dir) / sweep::kSweepMarker, ec);
    const bool results = fs::exists(fs::path(*dir) / "timeline.csv", ec) || fs::exists(fs::path(*dir) / "compare.csv", ec);
    const bool packing = fs::exists(fs::path(*dir) / "packing.csv", ec) || packing_compare(*dir);
    if (!sweep_folder && !results && !packing)
      throw util::InputError(
          *dir, 0, "", "is not a run, compare or sweep folder (no timeline.csv, packing.csv, compare.csv or sweep)");
    std::vector<std::string> args{*dir};
    // -o: the figures are drawn in a staging folder beside the target and renamed into place,
    // so that a script that fails half-way leaves the previous figures as they were.
    std::optional<util::StagingDir> staging;
    fs::path final_png;
    if (!out->empty()) {
      check_figure_target(*out);
      final_png = fs::path(*out);
      const fs::path parent = final_png.parent_path().empty() ? fs::path(".") : final_png.parent_path();
      staging.emplace((parent / fmt::format(".{}.figures", final_png.filename().string())).string(), true);
      args.insert(args.end(), {"-o", staging->file(final_png.filename().string())});
    }
    if (sweep_folder && !fs::exists(fs::path(*dir) / "sweep-summary.csv", ec)) {
      const auto spec = sweep::read_folder(*dir);
      sweep::collect(spec, sweep::SweepFolder{*dir});
    }
    const bool compare = !sweep_folder && !packing && !fs::exists(fs::path(*dir) / "timeline.csv", ec);
    const char* script = sweep_folder ? k_plot_sweep_py
                         : packing    ? k_plot_packing_py
                         : compare    ? k_plot_compare_py
                                      : k_plot_results_py;
    const int rc = run_python(script, args, staging.has_value());
    if (rc == 127)
      throw util::EnvironmentError(
          "plot: python3 not found: install python3 and python3-matplotlib (scripts/setup.sh)");
    if (rc != 0)
      throw util::EnvironmentError(
          fmt::format("plot: the figure script ended with {} (is python3-matplotlib installed?)", rc));
    if (staging) {
      std::vector<std::string> wrote;
      const fs::path drawn = fs::path(staging->path()) / final_png.filename();
      const auto from = figure_files(drawn), to = figure_files(final_png);
      for (std::size_t i = 0; i < from.size(); ++i) {
        if (!fs::exists(from[i], ec)) continue;
        if (std::rename(from[i].c_str(), to[i].c_str()) != 0)
          throw util::InputError(to[i].string(), 0, "--out",
                                 fmt::format("cannot move the figure into place: {}", std::strerror(errno)));
        wrote.push_back(to[i].string());
      }
      fmt::print("wrote {}\n", fmt::join(wrote, ", "));
    }
    exit_code = 0;
  });
}

}  // namespace schedlab::cli
