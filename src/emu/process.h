// Task processes for node agents (POSIX): started in a process group of their own, with an
// environment, a working folder and a log file; stopped by the kill sequence (SIGTERM to the
// group, SIGKILL once a grace period has passed, as Peloton does); reaped without blocking.
// When a task's main process ends, whatever it left running in its group is killed, so that
// nothing an agent starts outlives it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace schedlab::emu {

struct ProcessSpec {
  std::vector<std::string> argv;           // argv[0] is looked up in PATH when it has no '/'
  std::map<std::string, std::string> env;  // set on top of the inherited environment
  std::string work_dir;                    // "" to stay in the caller's
  std::string log_file;                    // stdout and stderr, appended; "" for /dev/null
  // SIGKILL when the thread that spawned it ends (its agent killed, say): a task never
  // outlives its agent, so no orphan keeps writing to a job's checkpoint folder after the
  // job was started again elsewhere.
  bool die_with_parent = false;
};

struct ExitStatus {
  enum class Kind { exited, signaled };
  Kind kind = Kind::exited;
  int code = 0;  // the exit code, or the signal number
  bool operator==(const ExitStatus&) const = default;
  // "exited with 3", "killed by SIGKILL".
  std::string describe() const;
};

class Process {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts `spec`. Throws EnvironmentError, with no process left behind, when it cannot:
  // the program is not found or not executable, the working folder or the log file cannot be
  // opened.
  static Process spawn(const ProcessSpec& spec);
  // Starts a copy of this process (fork without exec) that runs `body` and exits with its
  // result, under spec's log file, process group and die_with_parent (argv, env and work_dir
  // are not used). For work this program does itself, such as a sweep's cells: no exec, no
  // second start of the program. Call it only from a process with one thread.
  static Process fork_call(const ProcessSpec& spec, const std::function<int()>& body);

  Process() = default;
  Process(Process&& other) noexcept;
  Process& operator=(Process&& other) noexcept;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  // A process still running is killed (SIGKILL to its group) and reaped.
  ~Process();

  // The process id, which is also its process group id (-1 for an empty Process).
  pid_t pid() const { return pid_; }
  // Started and not yet reaped.
  bool running() const { return pid_ > 0 && !status_; }

  // Sends `sig` to the process group; false when the process has ended.
  bool signal_group(int sig);
  // Starts the kill sequence: SIGTERM to the group now, SIGKILL once `grace` has passed
  // (poll() escalates). A second call never lengthens a grace period already running.
  void kill(std::chrono::milliseconds grace);
  bool killing() const { return kill_deadline_.has_value(); }

  // Without blocking: reaps the process if it has ended (and kills what is left of its
  // group), and escalates a kill sequence whose grace has run out. The exit status once
  // ended (every later call returns it again).
  std::optional<ExitStatus> poll();
  // Waits until the process ends (polling every few milliseconds, escalating as poll() does).
  ExitStatus wait();
  // kill(grace), then wait().
  ExitStatus terminate(std::chrono::milliseconds grace);

 private:
  void reset();

  pid_t pid_ = -1;
  std::optional<ExitStatus> status_;
  std::optional<Clock::time_point> kill_deadline_;
  bool sigkill_sent_ = false;
};

// The first element of PATH (as `env` would set it, else the inherited one) holding an
// executable file called `program`; `program` itself when it holds a '/'. Empty when none.
std::string find_program(const std::string& program, const std::map<std::string, std::string>& env);

}  // namespace schedlab::emu
