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

#include "util/yaml_util.h"
#include "util/error.h"
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

std::string array_ranges(const std::vector<std::size_t>& cells) {
  std::string out;
  for (std::size_t i = 0; i < cells.size();) {
    std::size_t j = i;
    while (j + 1 < cells.size() && cells[j + 1] == cells[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", cells[i]) : fmt::format("{}-{}", cells[i], cells[j]);
    i = j + 1;
  }
  return out;
}

std::string shell_quote(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string sbatch_script(const SlurmOptions& o, const std::string& self_exe, const std::string& dir,
                          const std::vector<std::size_t>& cells) {
  std::string s = "#!/bin/bash\n";
  s += "# Written by schedlab sweep --slurm: one array task per cell not done yet.\n";
  s += "#SBATCH --job-name=schedlab-sweep\n";
  s += fmt::format("#SBATCH --array={}{}\n", array_ranges(cells),
                   o.max_running ? fmt::format("%{}", o.max_running) : std::string());
  s += fmt::format("#SBATCH --output={}/cells/slurm-%A_%a.out\n", dir);
  s += "#SBATCH --ntasks=1\n";
  if (!o.partition.empty()) s += fmt::format("#SBATCH --partition={}\n", o.partition);
  if (!o.time.empty()) s += fmt::format("#SBATCH --time={}\n", o.time);
  s += fmt::format("exec {} sweep run-cell {} \"$SLURM_ARRAY_TASK_ID\"\n", shell_quote(self_exe), shell_quote(dir));
  return s;
}

SlurmJobs submit_to_slurm(const SlurmOptions& o, const std::string& self_exe, const SweepFolder& folder,
                          const std::vector<std::size_t>& cells, bool dry_run) {
  const std::string dir = std::filesystem::absolute(folder.dir).lexically_normal().string();
  const std::string script = dir + "/sweep.sbatch";
  util::write_staged(script, sbatch_script(o, self_exe, dir, cells));
  std::filesystem::permissions(script, std::filesystem::perms::owner_exec, std::filesystem::perm_options::add);
  SlurmJobs jobs;
  if (dry_run || cells.empty()) return jobs;
  auto [out, rc] = capture("sbatch --parsable " + shell_quote(script));
  jobs.array_job = job_id_of(out);
  if (rc != 0 || jobs.array_job.empty())
    throw util::EnvironmentError(fmt::format("sweep --slurm: sbatch {}: {}",
                                             rc == 127 ? "not found (is Slurm installed?)" : "refused the array",
                                             first_line_of(out)));
  std::string collect = fmt::format(
      "sbatch --parsable --job-name=schedlab-sweep-collect --dependency=afterany:{} --output={} --wrap={}",
      jobs.array_job, shell_quote(dir + "/slurm-collect-%j.out"),
      shell_quote(shell_quote(self_exe) + " sweep collect " + shell_quote(dir)));
  if (!o.partition.empty()) collect += " --partition=" + shell_quote(o.partition);
  auto [cout, crc] = capture(collect);
  jobs.collect_job = job_id_of(cout);
  if (crc != 0 || jobs.collect_job.empty())
    throw util::EnvironmentError(fmt::format("sweep --slurm: sbatch refused the collect job: {}", first_line_of(cout)));
  util::write_staged(dir + "/slurm.json",
                     nlohmann::json{{"array_job", jobs.array_job}, {"collect_job", jobs.collect_job}}.dump(2) + "\n");
  return jobs;
}

std::optional<SlurmQueue> slurm_queue(const SweepFolder& folder) {
  const std::string path = folder.dir + "/slurm.json";
  if (!std::ifstream(path)) return std::nullopt;
  SlurmQueue q;
  try {
    q.array_job = util::parse_json(util::read_config_file(path)).at("array_job").get<std::string>();
  } catch (const util::JsonReadError&) {
    return std::nullopt;
  } catch (const util::InputError&) {
    return std::nullopt;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  if (job_id_of(q.array_job).empty()) return std::nullopt;
  // -r: one line per array task.
  auto [out, rc] = capture("squeue -h -r -j " + q.array_job + " -o %T");
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
