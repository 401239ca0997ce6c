// fork/exec of task processes. Everything the child does between fork and exec is
// async-signal-safe (the parent may have threads): the environment, argv and the program's
// path are prepared before fork, and a failure in the child travels back through a pipe that
// exec closes (O_CLOEXEC), so spawn() reports it instead of the task "exiting 127".
#include "emu/process.h"

#include <fcntl.h>
#include <fmt/format.h>

#include <cstdio>

#include <iostream>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "util/error.h"

extern char** environ;

namespace schedlab::emu {

namespace {

// What failed in the child before exec, as sent through the pipe.
struct ChildFailure {
  int stage;  // 1: chdir, 2: exec
  int error;
};

// Marks every descriptor from 3 up close-on-exec: the agent's sockets and files must not leak
// into tasks (a task holding the agent's listening socket or connection would outlive it).
void child_close_on_exec_from_3() {
#if defined(SYS_close_range)
  constexpr unsigned kCloseRangeCloexec = 1u << 2;  // CLOSE_RANGE_CLOEXEC (Linux 5.11)
  if (::syscall(SYS_close_range, 3u, ~0u, kCloseRangeCloexec) == 0) return;
#endif
  struct rlimit rl {};
  long max_fd = 65536;
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 65536)
    max_fd = static_cast<long>(rl.rlim_cur);
  for (long fd = 3; fd < max_fd; ++fd) {
    const int flags = ::fcntl(static_cast<int>(fd), F_GETFD);
    if (flags >= 0) ::fcntl(static_cast<int>(fd), F_SETFD, flags | FD_CLOEXEC);
  }
}

[[noreturn]] void child_fail(int pipe_fd, int stage) {
  ChildFailure f{stage, errno};
  [[maybe_unused]] auto n = ::write(pipe_fd, &f, sizeof f);
  ::_exit(127);
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGTERM:
      return "SIGTERM";
    case SIGKILL:
      return "SIGKILL";
    case SIGINT:
      return "SIGINT";
    case SIGHUP:
      return "SIGHUP";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGPIPE:
      return "SIGPIPE";
    default:
      return nullptr;
  }
}

ExitStatus status_from_wait(int st) {
  if (WIFSIGNALED(st)) return ExitStatus{ExitStatus::Kind::signaled, WTERMSIG(st)};
  if (WIFEXITED(st)) return ExitStatus{ExitStatus::Kind::exited, WEXITSTATUS(st)};
  return ExitStatus{ExitStatus::Kind::exited, -1};
}

// Closes a descriptor at the end of a scope.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// A child's standard streams: input from /dev/null, output and errors to the log (or
// /dev/null). Opened by the parent, so that a failure is the parent's exception.
struct ChildStdio {
  Fd in;
  Fd out;
};

ChildStdio open_child_stdio(const std::string& log_file, const char* log_what) {
  ChildStdio s;
  s.in.fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (s.in.fd < 0) throw util::EnvironmentError(fmt::format("cannot open /dev/null: {}", std::strerror(errno)));
  const std::string log = log_file.empty() ? std::string("/dev/null") : log_file;
  s.out.fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (s.out.fd < 0)
    throw util::EnvironmentError(fmt::format("cannot open {} {}: {}", log_what, log, std::strerror(errno)));
  return s;
}

// The child's first steps, the same for a program and a call: a process group of its own
// (signals reach what it starts), death with the parent when asked (checked against a parent
// that died before the prctl), and its standard streams. Async-signal-safe calls only.
void child_enter(const ChildStdio& stdio, bool die_with_parent, pid_t parent) {
  ::setpgid(0, 0);
  if (die_with_parent) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
  }
  ::dup2(stdio.in.fd, 0);
  ::dup2(stdio.out.fd, 1);
  ::dup2(stdio.out.fd, 2);
}

}  // namespace

std::string ExitStatus::describe() const {
  if (kind == Kind::exited) return fmt::format("exited with {}", code);
  if (const char* name = signal_name(code)) return fmt::format("killed by {}", name);
  return fmt::format("killed by signal {}", code);
}

std::string find_program(const std::string& program, const std::map<std::string, std::string>& env) {
  if (program.find('/') != std::string::npos) return program;
  std::string path;
  if (auto it = env.find("PATH"); it != env.end())
    path = it->second;
  else if (const char* p = std::getenv("PATH"))
    path = p;
  else
    path = "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + program;
    if (is_executable_file(candidate)) return candidate;
    start = end + 1;
  }
  return "";
}

Process Process::spawn(const ProcessSpec& spec) {
  if (spec.argv.empty() || spec.argv[0].empty()) throw util::EnvironmentError("cannot start a task: empty command");
  const std::string& program = spec.argv[0];
  std::string exec_path = find_program(program, spec.env);
  if (exec_path.empty()) throw util::EnvironmentError(fmt::format("cannot start '{}': not found in PATH", program));
  // A relative path with a '/' is relative to the task's working folder, where exec runs.
  if (exec_path[0] != '/' && !spec.work_dir.empty()) exec_path = spec.work_dir + "/" + exec_path;
  if (!is_executable_file(exec_path))
    throw util::EnvironmentError(fmt::format("cannot start '{}': not an executable file", exec_path));

  // The environment: the inherited one with `env` set on top.
  std::vector<std::string> env_strings;
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv(*e);
    const auto eq = kv.find('=');
    if (eq != std::string_view::npos && spec.env.count(std::string(kv.substr(0, eq)))) continue;
    env_strings.emplace_back(kv);
  }
  for (const auto& [k, v] : spec.env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_strings = spec.argv;
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  const ChildStdio stdio = open_child_stdio(spec.log_file, "the task log");
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw util::EnvironmentError(fmt::format("cannot start '{}': pipe: {}", program, std::strerror(errno)));
  Fd err_read{pipe_fds[0]};
  Fd err_write{pipe_fds[1]};
  const char* work_dir = spec.work_dir.empty() ? nullptr : spec.work_dir.c_str();

  const pid_t parent = ::getpid();
  const bool die_with_parent = spec.die_with_parent;
  const pid_t pid = ::fork();
  if (pid < 0) throw util::EnvironmentError(fmt::format("cannot start '{}': fork: {}", program, std::strerror(errno)));
  if (pid == 0) {
    // The child: only async-signal-safe calls from here to exec.
    child_enter(stdio, die_with_parent, parent);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &dfl, nullptr);  // ignored ones would stay ignored
    if (work_dir && ::chdir(work_dir) != 0) child_fail(err_write.fd, 1);
    child_close_on_exec_from_3();
    ::execve(exec_path.c_str(), argv.data(), envp.data());
    child_fail(err_write.fd, 2);
  }
  // Also here, so that the group exists before the first signal whichever runs first.
  ::setpgid(pid, pid);
  ::close(err_write.fd);
  err_write.fd = -1;
  ChildFailure failure{};
  ssize_t n;
  do {
    n = ::read(err_read.fd, &failure, sizeof failure);
  } while (n < 0 && errno == EINTR);
  Process p;
  p.pid_ = pid;
  if (n == static_cast<ssize_t>(sizeof failure)) {
    p.wait();
    if (failure.stage == 1)
      throw util::EnvironmentError(fmt::format("cannot start '{}': working folder {}: {}", program, spec.work_dir,
                                               std::strerror(failure.error)));
    throw util::EnvironmentError(fmt::format("cannot start '{}': {}", exec_path, std::strerror(failure.error)));
  }
  return p;
}

Process Process::fork_call(const ProcessSpec& spec, const std::function<int()>& body) {
  const ChildStdio stdio = open_child_stdio(spec.log_file, "the log");
  // What the parent has buffered would otherwise be written twice.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw util::EnvironmentError(fmt::format("cannot start a process: fork: {}", std::strerror(errno)));
  if (pid == 0) {
    child_enter(stdio, spec.die_with_parent, parent);
    int rc = 1;
    try {
      rc = body();
    } catch (const std::exception& e) {
      rc = util::report_error(e);
    }
    std::cout.flush();
    std::fflush(nullptr);
    ::_exit(rc);  // not exit(): the parent's atexit handlers and static objects are the parent's
  }
  ::setpgid(pid, pid);
  Process p;
  p.pid_ = pid;
  return p;
}

Process::Process(Process&& other) noexcept { *this = std::move(other); }

Process& Process::operator=(Process&& other) noexcept {
  if (this != &other) {
    reset();
    pid_ = other.pid_;
    status_ = other.status_;
    kill_deadline_ = other.kill_deadline_;
    sigkill_sent_ = other.sigkill_sent_;
    other.pid_ = -1;
    other.status_.reset();
    other.kill_deadline_.reset();
  }
  return *this;
}

Process::~Process() { reset(); }

void Process::reset() {
  if (running()) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    int st;
    while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
  }
  pid_ = -1;
  status_.reset();
  kill_deadline_.reset();
  sigkill_sent_ = false;
}

bool Process::signal_group(int sig) {
  if (!running()) return false;
  return ::kill(-pid_, sig) == 0;
}

void Process::kill(std::chrono::milliseconds grace) {
  if (!running()) return;
  const auto deadline = Clock::now() + grace;
  if (kill_deadline_ && *kill_deadline_ <= deadline) return;
  kill_deadline_ = deadline;
  ::kill(-pid_, SIGTERM);
  if (grace.count() <= 0) {
    ::kill(-pid_, SIGKILL);
    sigkill_sent_ = true;
  }
}

std::optional<ExitStatus> Process::poll() {
  if (status_ || pid_ <= 0) return status_;
  siginfo_t info{};
  // WNOWAIT: the ended process stays a zombie for a moment, so its process group id cannot be
  // reused while the rest of the group is killed.
  const int rc = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
  if (rc == 0 && info.si_pid == pid_) {
    ::kill(-pid_, SIGKILL);
    int st = 0;
    pid_t r;
    do {
      r = ::waitpid(pid_, &st, 0);
    } while (r < 0 && errno == EINTR);
    status_ = r == pid_ ? status_from_wait(st) : ExitStatus{ExitStatus::Kind::exited, -1};
    return status_;
  }
  if (rc < 0 && errno == ECHILD) {  // reaped by someone else: nothing more to know
    status_ = ExitStatus{ExitStatus::Kind::exited, -1};
    return status_;
  }
  if (kill_deadline_ && !sigkill_sent_ && Clock::now() >= *kill_deadline_) {
    ::kill(-pid_, SIGKILL);
    sigkill_sent_ = true;
  }
  return std::nullopt;
}

ExitStatus Process::wait() {
  for (;;) {
    if (auto s = poll()) return *s;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

ExitStatus Process::terminate(std::chrono::milliseconds grace) {
  kill(grace);
  return wait();
}

}  // namespace schedlab::emu
