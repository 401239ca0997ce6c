// `schedlab plot DIR`: the right figure script for a run, compare or sweep folder, run with
// the machine's python3 and matplotlib. The scripts are embedded in the binary (generated
// plot_scripts.h), so the single binary plots without the repository beside it.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "cli/commands.h"
#include "plot_scripts.h"
#include "sweep/sweep_collect.h"
#include "sweep/sweep_folder.h"
#include "util/error.h"

namespace schedlab::cli {

namespace {
namespace fs = std::filesystem;

// Runs `python3 SCRIPT ARGS...` with this process's standard output and error; its exit code.
int run_python(const std::string& script_text, const std::vector<std::string>& args) {
  std::string path = (fs::temp_directory_path() / "schedlab-plot-XXXXXX").string();
  const int fd = ::mkstemp(path.data());
  if (fd < 0) throw EnvironmentError(fmt::format("plot: cannot create a temporary file: {}", std::strerror(errno)));
  ::close(fd);
  {
    std::ofstream out(path, std::ios::binary);
    out << script_text;
    if (!out) throw EnvironmentError(fmt::format("plot: cannot write {}", path));
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
    ::execvp(c_argv[0], c_argv.data());
    ::_exit(127);
  }
  int status = 0;
  if (pid > 0) ::waitpid(pid, &status, 0);
  std::error_code ec;
  fs::remove(path, ec);
  if (pid < 0) throw EnvironmentError(fmt::format("plot: fork: {}", std::strerror(errno)));
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
}  // namespace

void add_plot_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("plot", "Draw a results folder's figures as PNG and PDF: a run's timeline, a "
                                         "compare's JCTs and utilization, a sweep's metrics with confidence bands");
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
      throw InputError(*dir, 0, "",
                       "is not a run, compare or sweep folder (no timeline.csv, packing.csv, compare.csv or sweep)");
    std::vector<std::string> args{*dir};
    if (!out->empty()) args.insert(args.end(), {"-o", *out});
    if (sweep_folder && !fs::exists(fs::path(*dir) / "sweep-summary.csv", ec)) {
      const auto spec = sweep::read_folder(*dir);
      sweep::collect(spec, sweep::SweepFolder{*dir});
    }
    const int rc = run_python(sweep_folder ? k_plot_sweep_py : packing ? k_plot_packing_py : k_plot_results_py, args);
    if (rc == 127)
      throw EnvironmentError("plot: python3 not found: install python3 and python3-matplotlib (scripts/setup.sh)");
    if (rc != 0)
      throw EnvironmentError(fmt::format("plot: the figure script ended with {} (is python3-matplotlib installed?)", rc));
    exit_code = 0;
  });
}

}  // namespace schedlab::cli
