// fork/exec rather than posix_spawn: the child asks to die with its parent (PR_SET_PDEATHSIG),
// so a killed schedlab leaves no policy running. Between fork and exec the child only calls
// async-signal-safe functions (compare runs variants in threads).
#include "sched/external/policy_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "util/error.h"
#include "util/input_limits.h"

namespace schedlab::sched {

namespace {
void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}
}  // namespace

PolicyProcess::PolicyProcess(const std::string& command, const ExternalConfig& config)
    : file_(config.file), field_(config.field), command_(command), line_(config.line) {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0)
    throw util::InputError(file_, line_, field_, std::string("cannot make a pipe: ") + std::strerror(errno));
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    throw util::InputError(file_, line_, field_, std::string("cannot make a pipe: ") + std::strerror(errno));
  }
  // A write to a policy that has exited must fail with EPIPE, not kill schedlab.
  ::signal(SIGPIPE, SIG_IGN);
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) {
    for (int fd : {in[0], in[1], out[0], out[1]}) ::close(fd);
    throw util::InputError(file_, line_, field_, std::string("cannot start the policy: ") + std::strerror(errno));
  }
  if (pid_ == 0) {
    // Its own process group: the shell may start the policy as its child, and a kill must
    // reach both.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took hold
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    ::signal(SIGPIPE, SIG_DFL);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(pid_, pid_);  // as the child does: whichever runs first
  ::close(in[0]);
  ::close(out[1]);
  to_ = in[1];
  from_ = out[0];
}

PolicyProcess::~PolicyProcess() {
  close_fd(to_);
  close_fd(from_);
  if (!reaped_) reap(kGraceSeconds);
}

void PolicyProcess::finish() {
  close_fd(to_);
  close_fd(from_);
  if (!reaped_) reap(kGraceSeconds);
}

std::string PolicyProcess::reap(double wait_s) {
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::duration<double>(wait_s);
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) break;
    if (r < 0) {
      reaped_ = true;
      return "its status is unknown";
    }
    if (clock::now() >= deadline) {
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      reaped_ = true;
      return "it was killed";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  reaped_ = true;
  ::kill(-pid_, SIGKILL);  // anything the shell started and left behind
  if (WIFEXITED(status)) return fmt::format("it exited with status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("it was killed by signal {} ({})", WTERMSIG(status), ::strsignal(WTERMSIG(status)));
  return "it stopped";
}

void PolicyProcess::gone(const std::string& what) {
  close_fd(to_);
  close_fd(from_);
  // It may be exiting right now: give it a moment so that its status can be told.
  const std::string status = reaped_ ? std::string("it had exited") : reap(0.5);
  throw util::InputError(file_, line_, field_, fmt::format("'{}': the policy {}; {}", command_, what, status));
}

void PolicyProcess::send(const std::string& line) {
  std::string data = line;
  data += '\n';
  const char* p = data.data();
  std::size_t left = data.size();
  while (left > 0) {
    const ssize_t n = ::write(to_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) gone("stopped reading its input");
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

std::string PolicyProcess::receive(double timeout_s) {
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::duration<double>(timeout_s);
  char chunk[1 << 16];
  for (;;) {
    if (auto nl = buffer_.find('\n', scanned_); nl != std::string::npos) {
      if (nl > util::kMaxLineBytes) gone("wrote a line that " + util::line_too_long_message());
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      scanned_ = 0;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return line;
    }
    scanned_ = buffer_.size();
    if (buffer_.size() > util::kMaxLineBytes) gone("wrote a line that " + util::line_too_long_message());
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
    if (left <= 0) {
      ::kill(-pid_, SIGKILL);
      gone(fmt::format("did not answer within {:g} s (scheduler.external.timeout_s)", timeout_s));
    }
    pollfd pfd{from_, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = ::read(from_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) gone(std::string("could not be read: ") + std::strerror(errno));
    if (n == 0) gone("closed its output");
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

}  // namespace schedlab::sched
