// sbatch and squeue are run through popen with every word quoted; their answers are parsed,
// never trusted as numbers without a check.
#include "sweep/slurm.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/error.h"
#include "util/parse.h"
#include "util/suggest.h"
#include "util/text.h"
#include "util/yaml_util.h"
#include "workload/slurm_time.h"
#include "util/input_limits.h"
#include "util/json_read.h"
#include "util/staging_dir.h"

namespace schedlab::sweep {

namespace {
// Runs a shell command; its standard output and exit status.
std::pair<std::string, int> capture(const std::string& command) {
  std::FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (!p) return {"", -1};
  std::string out;
  char buf[4096];
  // What sbatch and squeue print is a job id or one state per line; more than a line of input
  // may hold is not kept (the rest is read and dropped, so the command is not blocked).
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p))
    if (out.size() < util::kMaxLineBytes) out.append(buf, std::min(n, util::kMaxLineBytes - out.size()));
  const int status = ::pclose(p);
  return {out, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

std::string first_line_of(const std::string& s) { return s.substr(0, s.find('\n')); }

// sbatch --parsable prints "ID" or "ID;cluster".
std::string job_id_of(const std::string& out) {
  std::string id = first_line_of(out);
  id = id.substr(0, id.find(';'));
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) return {};
  return id;
}
}  // namespace

SlurmPlan plan_slurm(std::vector<std::size_t> cells, std::size_t cells_per_task, std::size_t max_array_size) {
  SlurmPlan p;
  p.cells = std::move(cells);
  p.cells_per_task = std::max<std::size_t>(1, cells_per_task);
  p.tasks = (p.cells.size() + p.cells_per_task - 1) / p.cells_per_task;
  const std::size_t per_array = std::max<std::size_t>(1, max_array_size);
  for (std::size_t first = 0; first < p.tasks; first += per_array)
    p.arrays.push_back({first, std::min(per_array, p.tasks - first)});
  return p;
}

std::string scale_slurm_time(const std::string& per_cell, std::size_t n, const std::string& option) {
  const auto seconds = workload::slurm_duration_seconds(per_cell);
  if (!seconds || *seconds == 0 || per_cell.find('.') != std::string::npos)
    throw util::InputError("", 0, option,
                           fmt::format("'{}' is not a Slurm time limit (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or "
                                       "D-HH:MM:SS)",
                                       util::printable(per_cell)));
  const std::uint64_t total = *seconds * n;  // at most 10^5 days x 10^6 cells: no overflow
  return fmt::format("{}-{:02}:{:02}:{:02}", total / 86400, total % 86400 / 3600, total % 3600 / 60, total % 60);
}

void check_sbatch_arg(const std::string& arg) {
  auto refuse = [&](const std::string& why) {
    throw util::InputError("", 0, "--sbatch-arg", fmt::format("'{}': {}", util::printable(arg), why));
  };
  if (arg.size() < 2 || arg[0] != '-') refuse("not an sbatch option (e.g. --account=ml, --qos=high, --mem=8G)");
  for (unsigned char c : arg)
    if (c <= ' ' || c == 0x7f) refuse("holds whitespace or a control byte; give one option per --sbatch-arg, as --name=value");
  for (const char* own : {"--array", "-a", "--output", "-o", "--job-name", "-J", "--dependency", "-d", "--wrap"}) {
    const std::string o = own;
    if (arg == o || arg.rfind(o + "=", 0) == 0 || (o.size() == 2 && arg.rfind(o, 0) == 0))
      refuse("schedlab sets " + o + " itself");
  }
}

std::string shell_quote(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string sbatch_script(const SlurmOptions& o, const std::string& self_exe, const std::string& dir,
                          const SlurmPlan& plan) {
  const std::size_t first_array = plan.arrays.empty() ? 0 : plan.arrays.front().tasks;
  std::string s = "#!/bin/bash\n";
  s += fmt::format(
      "# Written by schedlab sweep --slurm: {} cell(s) not done yet, {} per array task, {} task(s) in {} array "
      "job(s).\n",
      plan.cells.size(), plan.cells_per_task, plan.tasks, plan.arrays.size());
  s += "#SBATCH --job-name=schedlab-sweep\n";
  if (first_array > 0)  // the arrays after the first are given theirs on sbatch's command line
    s += fmt::format("#SBATCH --array=0-{}{}\n", first_array - 1,
                     o.max_running ? fmt::format("%{}", o.max_running) : std::string());
  s += fmt::format("#SBATCH --output={}/cells/slurm-%A_%a.out\n", dir);
  s += "#SBATCH --ntasks=1\n";
  if (!o.partition.empty()) s += fmt::format("#SBATCH --partition={}\n", o.partition);
  if (!o.time.empty()) s += fmt::format("#SBATCH --time={}\n", scale_slurm_time(o.time, plan.cells_per_task));
  for (const auto& arg : o.sbatch_args) s += fmt::format("#SBATCH {}\n", arg);
  s += "# Array task T of the array job started at task SCHEDLAB_TASK_OFFSET runs cells[(T + offset) * per]\n";
  s += "# up to the next per; a failing cell does not stop the others, but fails the task.\n";
  s += "cells=(";
  for (std::size_t i = 0; i < plan.cells.size(); ++i) s += fmt::format("{}{}", i % 20 ? " " : "\n  ", plan.cells[i]);
  s += "\n)\n";
  s += fmt::format("per={}\n", plan.cells_per_task);
  s += "task=$((SLURM_ARRAY_TASK_ID + ${SCHEDLAB_TASK_OFFSET:-0}))\n";
  s += "rc=0\n";
  s += "for ((i = task * per; i < (task + 1) * per && i < ${#cells[@]}; i++)); do\n";
  s += fmt::format("  {} sweep run-cell {} \"${{cells[i]}}\" || rc=1\n", shell_quote(self_exe), shell_quote(dir));
  s += "done\n";
  s += "exit $rc\n";
  return s;
}

std::size_t site_max_array_size(std::string& said) {
  auto [out, rc] = capture("scontrol show config");
  if (rc == 0) {
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("MaxArraySize", 0) != 0) continue;
      const auto eq = line.find('=');
      std::int64_t v = 0;
      if (eq != std::string::npos && util::try_parse_int(util::trim(std::string_view(line).substr(eq + 1)), v) &&
          v >= 1)
        return static_cast<std::size_t>(v);
    }
  }
  said = fmt::format("MaxArraySize taken as Slurm's default, {} (scontrol show config {})", kDefaultMaxArraySize,
                     rc == 0 ? "did not say" : "could not be run");
  return kDefaultMaxArraySize;
}

SlurmJobs submit_to_slurm(const SlurmOptions& o, const std::string& self_exe, const SweepFolder& folder,
                          const SlurmPlan& plan, bool dry_run) {
  const std::string dir = std::filesystem::absolute(folder.dir).lexically_normal().string();
  const std::string script = dir + "/sweep.sbatch";
  util::write_staged(script, sbatch_script(o, self_exe, dir, plan));
  std::filesystem::permissions(script, std::filesystem::perms::owner_exec, std::filesystem::perm_options::add);
  SlurmJobs jobs;
  if (dry_run || plan.cells.empty()) return jobs;
  std::string site_args;
  for (const auto& arg : o.sbatch_args) site_args += " " + shell_quote(arg);
  auto submitted = [&] { return jobs.array_jobs.empty() ? std::string() : " (submitted before it: " + util::join(jobs.array_jobs, ", ") + "; scancel them or rerun the sweep)"; };
  for (std::size_t a = 0; a < plan.arrays.size(); ++a) {
    const auto& arr = plan.arrays[a];
    std::string command = "sbatch --parsable";
    if (a > 0)
      command += fmt::format(" --array=0-{}{} --export=ALL,SCHEDLAB_TASK_OFFSET={}", arr.tasks - 1,
                             o.max_running ? fmt::format("%{}", o.max_running) : std::string(), arr.first_task);
    auto [out, rc] = capture(command + " " + shell_quote(script));
    const std::string id = job_id_of(out);
    if (rc != 0 || id.empty())
      throw util::EnvironmentError(fmt::format("sweep --slurm: sbatch {}: {}{}",
                                               rc == 127 ? "not found (is Slurm installed?)" : "refused the array",
                                               first_line_of(out), submitted()));
    jobs.array_jobs.push_back(id);
  }
  std::string collect = fmt::format(
      "sbatch --parsable --job-name=schedlab-sweep-collect --dependency=afterany:{} --output={} --wrap={}{}",
      util::join(jobs.array_jobs, ":"), shell_quote(dir + "/slurm-collect-%j.out"),
      shell_quote(shell_quote(self_exe) + " sweep collect " + shell_quote(dir)), site_args);
  if (!o.partition.empty()) collect += " --partition=" + shell_quote(o.partition);
  auto [cout, crc] = capture(collect);
  jobs.collect_job = job_id_of(cout);
  if (crc != 0 || jobs.collect_job.empty())
    throw util::EnvironmentError(
        fmt::format("sweep --slurm: sbatch refused the collect job: {}{}", first_line_of(cout), submitted()));
  util::write_staged(dir + "/slurm.json", nlohmann::json{{"array_job", jobs.array_jobs.front()},
                                                         {"array_jobs", jobs.array_jobs},
                                                         {"collect_job", jobs.collect_job}}
                                                  .dump(2) +
                                              "\n");
  return jobs;
}

std::optional<SlurmQueue> slurm_queue(const SweepFolder& folder) {
  const std::string path = folder.dir + "/slurm.json";
  if (!std::ifstream(path)) return std::nullopt;
  SlurmQueue q;
  try {
    const auto doc = util::parse_json(util::read_config_file(path));
    std::vector<std::string> ids;
    if (doc.contains("array_jobs"))
      ids = doc.at("array_jobs").get<std::vector<std::string>>();
    else  // a folder submitted by an older schedlab: one array
      ids.push_back(doc.at("array_job").get<std::string>());
    for (const auto& id : ids)
      if (job_id_of(id).empty()) return std::nullopt;
    q.array_jobs = util::join(ids, ",");
  } catch (const util::JsonReadError&) {
    return std::nullopt;
  } catch (const util::InputError&) {
    return std::nullopt;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  if (q.array_jobs.empty()) return std::nullopt;
  // -r: one line per array task.
  auto [out, rc] = capture("squeue -h -r -j " + q.array_jobs + " -o %T");
  if (rc != 0) {
    if (out.find("Invalid job id") != std::string::npos) return q;  // ended and forgotten
    return std::nullopt;
  }
  std::istringstream lines(out);
  for (std::string state; std::getline(lines, state);) {
    if (state == "RUNNING" || state == "COMPLETING")
      ++q.running;
    else if (state == "PENDING" || state == "CONFIGURING")
      ++q.pending;
  }
  return q;
}

}  // namespace schedlab::sweep
