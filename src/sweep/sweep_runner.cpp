// The local runner: a pool of child processes polled every few milliseconds.
#include "sweep/sweep_runner.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <thread>

#include <malloc.h>
#include <sys/wait.h>

#include <cerrno>

#include <fmt/format.h>

#include "config/scenario.h"
#include "util/parsed_yaml_files.h"
#include "emu/process.h"
#include "util/error.h"
#include "util/process_alive.h"

namespace schedlab::sweep {

namespace fs = std::filesystem;


namespace {
// A cell's process: what `schedlab sweep run-cell` does, and its exit codes.
int cell_main(const SweepSpec& spec, const SweepFolder& folder, std::size_t index, util::Notices& notices,
              util::ParsedYamlFiles& files) {
  // A cell lives for milliseconds: memory it frees goes back to its heap, never to the
  // kernel, whose unmapping (a TLB flush each, dear on a virtual machine) was a tenth of a
  // short cell's time. The kernel takes it all back at once when the cell exits.
  ::mallopt(M_MMAP_THRESHOLD, 1 << 30);
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
  try {
    run_cell(spec, folder, index, notices, &files);
    return 0;
  } catch (const std::exception& e) {
    return util::report_error(e);
  }
}

// Reads the files of a cell's scenario once here into `files`, so that each cell, a fork with
// its own copy of them, takes them parsed (util/parsed_yaml_files.h). A file the first cell
// does not read (a grid over `cluster`) is parsed by the cells that do. A scenario that does
// not load is the cells' to report, each in its own error file: nothing is said here.
void set_aside_config_files(const SweepSpec& spec, std::size_t index, util::ParsedYamlFiles& files) {
  files.set_aside(true);
  try {
    const auto cell = cell_at(spec, index);
    (void)config::load_scenario(spec.scenario, cell_sets(spec, cell), cell.seed, std::nullopt, &files);
  } catch (const std::exception&) {
  }
  files.set_aside(false);
}
}  // namespace

std::optional<double> time_one_cell(const SweepSpec& spec, const SweepFolder& folder, std::size_t index,
                                    util::Notices& notices, std::chrono::milliseconds limit) {
  util::ParsedYamlFiles files;
  emu::ProcessSpec ps;
  ps.log_file = folder.cell_log(index);
  ps.die_with_parent = true;
  std::error_code ec;
  fs::remove(ps.log_file, ec);
  const auto t0 = std::chrono::steady_clock::now();
  auto process = emu::Process::fork_call(
      ps, [&spec, &folder, index, &notices, &files] { return cell_main(spec, folder, index, notices, files); });
  for (;;) {
    if (const auto status = process.poll()) {
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const bool ok = status->kind == emu::ExitStatus::Kind::exited && status->code == 0 && folder.done(index);
      return ok ? std::optional<double>(seconds) : std::nullopt;
    }
    if (std::chrono::steady_clock::now() - t0 > limit) {
      process.terminate(std::chrono::milliseconds(1000));
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

SweepReport run_local(const SweepSpec& spec, const SweepFolder& folder, unsigned jobs, util::Notices& notices,
                      const std::function<void(std::size_t, std::size_t)>& progress) {
  SweepReport report;
  report.cells = cell_count(spec);
  std::deque<std::size_t> todo;
  for (std::size_t i = 0; i < report.cells; ++i) {
    if (folder.done(i))
      ++report.skipped;
    else
      todo.push_back(i);
  }
  const std::size_t to_run = todo.size();
  util::ParsedYamlFiles files;
  if (!todo.empty()) set_aside_config_files(spec, todo.front(), files);
  struct Running {
    std::size_t index;
    emu::Process process;
  };
  std::vector<Running> running;
  jobs = std::max(1u, jobs);
  while (!todo.empty() || !running.empty()) {
    while (!todo.empty() && running.size() < jobs) {
      const std::size_t i = todo.front();
      todo.pop_front();
      emu::ProcessSpec ps;
      ps.log_file = folder.cell_log(i);
      ps.die_with_parent = true;  // a killed sweep leaves no cell running behind it
      std::error_code ec;
      fs::remove(ps.log_file, ec);
      running.push_back({i, emu::Process::fork_call(ps, [&spec, &folder, i, &notices, &files] { return cell_main(spec, folder, i, notices, files); })});
    }
    bool ended = false;
    for (auto it = running.begin(); it != running.end();) {
      const auto status = it->process.poll();
      if (!status) {
        ++it;
        continue;
      }
      ++report.ran;
      ended = true;
      if (!(status->kind == emu::ExitStatus::Kind::exited && status->code == 0) || !folder.done(it->index)) {
        CellFailure f;
        f.index = it->index;
        f.exit_code = status->kind == emu::ExitStatus::Kind::exited ? status->code : 128 + status->code;
        f.why = folder.why_failed(it->index);
        if (f.why.empty()) f.why = "its process " + status->describe();
        report.failures.push_back(std::move(f));
      }
      if (progress) progress(report.ran, to_run);
      it = running.erase(it);
    }
    if (!ended) {
      // Until a cell ends: waitid without reaping (the cell's Process reaps it in poll()), so
      // the next cell starts the moment one ends rather than at the next tick of a poll.
      siginfo_t info{};
      if (::waitid(P_ALL, 0, &info, WEXITED | WNOWAIT) != 0 && errno != EINTR)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  std::sort(report.failures.begin(), report.failures.end(),
            [](const CellFailure& a, const CellFailure& b) { return a.index < b.index; });
  return report;
}

SweepStatus folder_status(const SweepSpec& spec, const SweepFolder& folder) {
  SweepStatus s;
  s.cells = cell_count(spec);
  // Staging folders of live writers: ".cell-000042.tmp-PID".
  std::vector<bool> live(s.cells, false);
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder.dir + "/cells", ec)) {
    const std::string name = e.path().filename().string();
    const auto tmp = name.find(".tmp-");
    if (name.size() < 6 || name[0] != '.' || tmp == std::string::npos || name.compare(1, 5, "cell-") != 0) continue;
    try {
      const std::size_t index = std::stoul(name.substr(6, tmp - 6));
      const long pid = std::stol(name.substr(tmp + 5));
      if (index < s.cells && util::process_alive(static_cast<pid_t>(pid))) live[index] = true;
    } catch (const std::exception&) {
    }
  }
  for (std::size_t i = 0; i < s.cells; ++i) {
    if (folder.done(i))
      ++s.done;
    else if (live[i])
      ++s.running;
    else if (folder.failed(i))
      ++s.failed;
    else
      ++s.missing;
  }
  return s;
}

}  // namespace schedlab::sweep
