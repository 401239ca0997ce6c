// Task processes: exit codes and signals, the kill sequence, environment, working folder and
// log file, and no process left behind.
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/scratch_dir.h"
#include "emu/process.h"
#include "util/error.h"

namespace schedlab::emu::process_test {

namespace {

using ScratchDir = schedlab::testing::ScratchDir;
using schedlab::testing::file_text;

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Running: it exists and is not a zombie (an orphan's zombie waits for init to reap it,
// which in a container may take a while).
bool alive(pid_t pid) {
  if (::kill(pid, 0) != 0) return false;
  const std::string stat = file_text("/proc/" + std::to_string(pid) + "/stat");
  const auto paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] != 'Z';
}

// Waits up to `limit` for `pred`.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = 3000ms) {
  const auto end = Clock::now() + limit;
  while (Clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return pred();
}

}  // namespace

TEST_CASE("Emu.Process.an_exit_code_is_reported") {
  Process p = Process::spawn({{"sh", "-c", "exit 3"}, {}, "", ""});
  CHECK(p.pid() > 0);
  ExitStatus st = p.wait();
  CHECK(st == ExitStatus{ExitStatus::Kind::exited, 3});
  CHECK(st.describe() == "exited with 3");
  CHECK_FALSE(p.running());
  CHECK(p.poll() == st);  // again, the same
}

TEST_CASE("Emu.Process.poll_does_not_block") {
  Process p = Process::spawn({{"sleep", "30"}, {}, "", ""});
  const auto t0 = Clock::now();
  CHECK_FALSE(p.poll().has_value());
  CHECK(Clock::now() - t0 < 100ms);
  CHECK(p.running());
}

TEST_CASE("Emu.Process.kill_with_grace_ends_a_process_by_sigterm") {
  Process p = Process::spawn({{"sleep", "30"}, {}, "", ""});
  const auto t0 = Clock::now();
  ExitStatus st = p.terminate(5000ms);
  CHECK(st == ExitStatus{ExitStatus::Kind::signaled, SIGTERM});
  CHECK(st.describe() == "killed by SIGTERM");
  CHECK(Clock::now() - t0 < 2000ms);  // well inside the grace: SIGTERM did it
}

TEST_CASE("Emu.Process.a_process_ignoring_sigterm_is_sigkilled_after_the_grace") {
  ScratchDir dir("trap");
  const auto ready = dir.path / "ready";
  Process p = Process::spawn({{"sh", "-c", "trap '' TERM; touch " + ready.string() + "; sleep 30"}, {}, "", ""});
  REQUIRE(eventually([&] { return fs::exists(ready); }));
  const auto t0 = Clock::now();
  p.kill(300ms);
  CHECK(p.killing());
  std::this_thread::sleep_for(100ms);
  CHECK_FALSE(p.poll().has_value());  // SIGTERM ignored, still inside the grace
  ExitStatus st = p.wait();
  const auto took = Clock::now() - t0;
  CHECK(st == ExitStatus{ExitStatus::Kind::signaled, SIGKILL});
  CHECK(took >= 300ms);
  CHECK(took < 2000ms);
}

TEST_CASE("Emu.Process.the_whole_group_is_signalled_and_nothing_is_left_behind") {
  ScratchDir dir("group");
  const auto pidfile = dir.path / "child.pid";
  // The shell starts a background sleep (same group), records its pid, and waits.
  Process p = Process::spawn({{"sh", "-c", "sleep 30 & echo $! > " + pidfile.string() + "; wait"}, {}, "", ""});
  REQUIRE(eventually([&] { return !file_text(pidfile).empty(); }));
  const pid_t child = std::stoi(file_text(pidfile));
  CHECK(alive(child));
  p.terminate(2000ms);
  CHECK(eventually([&] { return !alive(child); }));

  // A task that exits by itself leaves nothing running either.
  Process q = Process::spawn({{"sh", "-c", "sleep 30 & echo $! > " + pidfile.string() + "; exit 0"}, {}, "", ""});
  CHECK(q.wait() == ExitStatus{ExitStatus::Kind::exited, 0});
  const pid_t orphan = std::stoi(file_text(pidfile));
  CHECK(eventually([&] { return !alive(orphan); }));
}

TEST_CASE("Emu.Process.environment_working_folder_and_log_are_passed") {
  ScratchDir dir("env");
  const auto log = dir.path / "task.log";
  ::setenv("SCHEDLAB_TEST_INHERITED", "from-parent", 1);
  ::setenv("SCHEDLAB_TEST_OVERRIDDEN", "old", 1);
  ProcessSpec spec;
  spec.argv = {"sh", "-c",
               "echo \"$SCHEDLAB_TEST_INHERITED $SCHEDLAB_TEST_OVERRIDDEN $RANK $(pwd)\"; echo oops >&2; exit 0"};
  spec.env = {{"SCHEDLAB_TEST_OVERRIDDEN", "new"}, {"RANK", "3"}};
  spec.work_dir = dir.path.string();
  spec.log_file = log.string();
  Process::spawn(spec).wait();
  Process::spawn(spec).wait();  // appended, not replaced
  const std::string line = "from-parent new 3 " + fs::canonical(dir.path).string() + "\noops\n";
  CHECK(file_text(log) == line + line);
  ::unsetenv("SCHEDLAB_TEST_INHERITED");
  ::unsetenv("SCHEDLAB_TEST_OVERRIDDEN");
}

TEST_CASE("Emu.Process.signals_blocked_or_ignored_by_the_parent_are_not_inherited") {
  sigset_t term, old;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, &old);
  Process p = Process::spawn({{"sleep", "30"}, {}, "", ""});
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  CHECK(p.terminate(5000ms) == ExitStatus{ExitStatus::Kind::signaled, SIGTERM});
}

TEST_CASE("Emu.Process.what_cannot_start_is_an_error_not_a_process") {
  ScratchDir dir("fail");
  auto message = [](const ProcessSpec& spec) -> std::string {
    try {
      Process::spawn(spec);
    } catch (const util::EnvironmentError& e) {
      return e.what();
    }
    return "";
  };
  CHECK(message({{"schedlab-no-such-program"}, {}, "", ""}) ==
        "cannot start 'schedlab-no-such-program': not found in PATH");
  std::ofstream(dir.path / "plain.txt") << "not a program\n";
  CHECK(message({{(dir.path / "plain.txt").string()}, {}, "", ""}).find("not an executable file") != std::string::npos);
  CHECK(message({{"sh", "-c", "true"}, {}, (dir.path / "missing").string(), ""}).find("working folder") !=
        std::string::npos);
  CHECK(message({{"sh", "-c", "true"}, {}, "", (dir.path / "no" / "log").string()}).find("cannot open the task log") !=
        std::string::npos);
  CHECK(message({{}, {}, "", ""}) == "cannot start a task: empty command");
  // PATH from the task's environment decides where the program is looked for.
  CHECK(find_program("sh", {{"PATH", "/nonexistent"}}).empty());
  CHECK_FALSE(find_program("sh", {}).empty());
}

TEST_CASE("Emu.Process.a_process_dropped_while_running_is_killed") {
  pid_t pid;
  {
    Process p = Process::spawn({{"sleep", "30"}, {}, "", ""});
    pid = p.pid();
    Process moved = std::move(p);
    CHECK(moved.pid() == pid);
    CHECK(p.pid() == -1);
  }
  CHECK_FALSE(alive(pid));  // killed and reaped: no such process, not even a zombie
}

}  // namespace schedlab::emu::process_test
