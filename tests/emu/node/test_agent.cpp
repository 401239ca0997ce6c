// The node agent against a fake controller (the real HttpServer with a tiny handler):
// registration, launch and exit reports with progress, a start reported at once, kill, a
// restarted controller, and a controller lost for good.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "emu/net/router.h"
#include "emu/node/agent.h"
#include "support/scratch_dir.h"

namespace schedlab::emu::agent_test {

namespace {

using ScratchDir = schedlab::testing::ScratchDir;
using schedlab::testing::file_text;

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A controller that records what agents send and hands out queued commands. Polls are held
// (long polling) until a command is queued or their wait runs out, as the real one does.
class FakeController {
 public:
  explicit FakeController(std::uint16_t port = 0) { start(port); }
  ~FakeController() { stop(); }

  void start(std::uint16_t port) {
    {
      std::lock_guard lock(mu_);
      stopping_ = false;
      current_id_.clear();
    }
    Router r;
    r.add("POST", "/v1/agents/register", [this](const HttpRequest& req, const RouteParams&, Responder respond) {
      auto m = parse_register_request(req.body);
      if (!parse_or_refuse(m, respond)) return;
      std::lock_guard lock(mu_);
      current_id_ = "agent-" + std::to_string(++incarnations_);
      registrations.push_back(m.value());
      cv_.notify_all();
      respond(json_response(200, to_json(RegisterResponse{current_id_, 200, 2000})));
    });
    r.add("POST", "/v1/agents/poll", [this](const HttpRequest& req, const RouteParams&, Responder respond) {
      auto m = parse_poll_request(req.body);
      if (!parse_or_refuse(m, respond)) return;
      std::lock_guard lock(mu_);
      if (m.value().agent_id != current_id_) return respond(error_response(409, "unknown or stale agent_id"));
      ++polls;
      record(m.value().reports);
      held_.push_back(Held{respond, Clock::now() + std::chrono::milliseconds(m.value().wait_ms)});
      cv_.notify_all();
    });
    r.add("POST", "/v1/agents/report", [this](const HttpRequest& req, const RouteParams&, Responder respond) {
      auto m = parse_report_request(req.body);
      if (!parse_or_refuse(m, respond)) return;
      std::lock_guard lock(mu_);
      if (m.value().agent_id != current_id_) return respond(error_response(409, "unknown or stale agent_id"));
      record(m.value().reports);
      by_report.insert(by_report.end(), m.value().reports.begin(), m.value().reports.end());
      respond(json_response(200, ok_json()));
    });
    HttpServerOptions opt;
    opt.port = port;
    server_ = std::make_unique<HttpServer>(opt, r.handler(), [this](const std::string& line) {
      std::lock_guard lock(mu_);
      log.push_back(line);
    });
    server_->start();
    port_ = server_->port();
    ticker_ = std::thread([this] { tick(); });
  }

  // Stops serving; the agent sees connections closed, then refused.
  void stop() {
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
      stopping_ = true;
    }
    cv_.notify_all();
    ticker_.join();
    server_->stop();
    server_.reset();
    std::lock_guard lock(mu_);
    held_.clear();
  }

  // Forgets the agent's registration: its next poll gets 409.
  void forget() {
    std::lock_guard lock(mu_);
    current_id_ = "forgotten";
  }

  void command(Command c) {
    std::lock_guard lock(mu_);
    pending_.push_back(std::move(c));
    cv_.notify_all();
  }

  // Waits up to `limit` for `pred` (called under the lock).
  template <class Pred>
  bool wait_for(Pred pred, std::chrono::milliseconds limit = 3000ms) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, limit, [&] { return pred(); });
  }

  // The last report of `task` in state `state`, if any (under the lock: call from wait_for).
  std::optional<TaskReport> last(const std::string& task, TaskState state) const {
    for (auto it = reports.rbegin(); it != reports.rend(); ++it)
      if (it->task == task && it->state == state) return *it;
    return std::nullopt;
  }

  // Waits up to `limit` for a report of `task` in `state`.
  std::optional<TaskReport> wait_report(const std::string& task, TaskState state,
                                        std::chrono::milliseconds limit = 3000ms) {
    std::optional<TaskReport> found;
    wait_for([&] { return (found = last(task, state)).has_value(); }, limit);
    return found;
  }

  // A copy of the registrations so far.
  std::vector<RegisterRequest> registered() {
    std::lock_guard lock(mu_);
    return registrations;
  }

  std::uint16_t port() const { return port_; }

  // Recorded (read under wait_for, or after the agent stopped).
  std::vector<RegisterRequest> registrations;
  std::vector<TaskReport> reports;
  std::vector<TaskReport> by_report;  // those that came by /v1/agents/report
  std::vector<std::string> log;
  int polls = 0;

 private:
  struct Held {
    Responder respond;
    Clock::time_point deadline;
  };

  void record(const std::vector<TaskReport>& rs) {
    reports.insert(reports.end(), rs.begin(), rs.end());
    cv_.notify_all();
  }

  // Answers held polls: with the queued commands, or empty when their wait runs out.
  void tick() {
    std::unique_lock lock(mu_);
    while (!stopping_) {
      cv_.wait_for(lock, 5ms);
      const auto now = Clock::now();
      for (auto it = held_.begin(); it != held_.end();) {
        if (!pending_.empty() || now >= it->deadline) {
          PollResponse out;
          out.commands.assign(pending_.begin(), pending_.end());
          pending_.clear();
          it->respond(json_response(200, to_json(out)));
          it = held_.erase(it);
        } else {
          ++it;
        }
      }
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::unique_ptr<HttpServer> server_;
  std::uint16_t port_ = 0;
  std::thread ticker_;
  bool stopping_ = false;
  int incarnations_ = 0;
  std::string current_id_;
  std::deque<Command> pending_;
  std::vector<Held> held_;
};

// An agent run on its own thread; its exit code once run() returned.
class RunningAgent {
 public:
  RunningAgent(std::uint16_t port, const fs::path& work, std::chrono::milliseconds lost_timeout = 5000ms) {
    AgentOptions o;
    o.controller_port = port;
    o.host = "h1";
    o.gpus = {0, 1, 2, 3};
    o.virtual_gpus = true;
    o.work_dir = work.string();
    o.lost_timeout = lost_timeout;
    o.poll_wait = 200ms;
    o.request_margin = 1000ms;
    o.stop_grace = 1000ms;
    o.retry_min = 20ms;
    o.retry_max = 100ms;
    o.log = [this](const std::string& line) {
      std::lock_guard lock(mu_);
      log_.push_back(line);
    };
    agent_ = std::make_unique<Agent>(std::move(o));
    thread_ = std::thread([this] {
      const int rc = agent_->run();
      std::lock_guard lock(mu_);
      rc_ = rc;
      cv_.notify_all();
    });
  }
  ~RunningAgent() {
    agent_->stop();
    thread_.join();
  }
  Agent& agent() { return *agent_; }
  // The exit code, once run() returns within `limit`.
  std::optional<int> exit_code(std::chrono::milliseconds limit) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, limit, [&] { return rc_.has_value(); });
    return rc_;
  }
  bool logged(const std::string& text) {
    std::lock_guard lock(mu_);
    for (const auto& l : log_)
      if (l.find(text) != std::string::npos) return true;
    return false;
  }

 private:
  std::unique_ptr<Agent> agent_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<int> rc_;
  std::vector<std::string> log_;
};

LaunchCommand launch_of(const std::string& task, const std::string& script, const fs::path& checkpoint_dir) {
  return LaunchCommand{task, 7, 1, 0, {"sh", "-c", script}, {{"RANK", "0"}}, checkpoint_dir.string()};
}

// Running: it exists and is not a zombie (an orphan's zombie waits for init to reap it,
// which in a container may take a while).
bool process_alive(pid_t pid) {
  if (::kill(pid, 0) != 0) return false;
  const std::string stat = file_text("/proc/" + std::to_string(pid) + "/stat");
  const auto paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] != 'Z';
}

// The process id a task wrote to `file` (waits up to 3 s for it to appear whole).
pid_t pid_from(const fs::path& file) {
  const auto end = Clock::now() + 3000ms;
  while (Clock::now() < end) {
    const std::string text = file_text(file);
    if (text.ends_with('\n')) return std::stoi(text);
    std::this_thread::sleep_for(5ms);
  }
  FAIL("no process id in " << file);
  return -1;
}

}  // namespace

TEST_CASE("Emu.Agent.registers_launches_and_reports_an_exit_with_its_progress") {
  ScratchDir dir("launch");
  FakeController controller;
  RunningAgent a(controller.port(), dir.path / "work");
  REQUIRE(controller.wait_for([&] { return !controller.registrations.empty(); }));
  const auto ck = dir.path / "ck" / "job7";
  controller.command(launch_of("j7-r1-t0",
                               "echo 5 > $SCHEDLAB_PROGRESS_FILE; echo \"$SCHEDLAB_CHECKPOINT_DIR $RANK\" > "
                               "$SCHEDLAB_CHECKPOINT_DIR/env; exit 0",
                               ck));
  auto done = controller.wait_report("j7-r1-t0", TaskState::exited);
  REQUIRE(done);
  CHECK(done->exit_code == 0);
  CHECK(done->job == 7);
  CHECK(done->run == 1);
  REQUIRE(done->progress.has_value());
  CHECK(*done->progress == 5.0);
  CHECK(file_text(ck / "env") == ck.string() + " 0\n");
  struct stat st {};
  REQUIRE(::stat(ck.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  controller.command(ShutdownCommand{});
  CHECK(a.exit_code(3000ms) == 0);
  CHECK(a.logged("shutdown requested by the controller"));
}

TEST_CASE("Emu.Agent.registration_carries_host_and_gpus") {
  ScratchDir dir("register");
  FakeController controller;
  RunningAgent a(controller.port(), dir.path);
  REQUIRE(controller.wait_for([&] { return !controller.registrations.empty(); }));
  REQUIRE(controller.wait_for([&] { return controller.polls >= 2; }));  // polls follow, as heartbeats
  const auto r = controller.registered().at(0);
  CHECK(r.host == "h1");
  CHECK(r.gpus == std::vector<std::uint32_t>{0, 1, 2, 3});
  CHECK(r.virtual_gpus);
  CHECK(r.tasks.empty());
  CHECK(a.agent().agent_id() == "agent-1");
}

TEST_CASE("Emu.Agent.a_kill_command_ends_the_task_and_its_signal_is_reported") {
  ScratchDir dir("kill");
  FakeController controller;
  RunningAgent a(controller.port(), dir.path);
  REQUIRE(controller.wait_for([&] { return !controller.registrations.empty(); }));
  controller.command(launch_of("t-sleep", "echo 1.5 > $SCHEDLAB_PROGRESS_FILE; exec sleep 30", dir.path / "ck"));
  // Running, with its progress, in a poll.
  REQUIRE(controller.wait_for([&] {
    auto r = controller.last("t-sleep", TaskState::running);
    return r && r->progress == 1.5;
  }));
  CHECK(a.agent().running_tasks() == 1);
  const auto t0 = Clock::now();
  controller.command(KillCommand{"t-sleep", 5000});
  auto killed = controller.wait_report("t-sleep", TaskState::signaled);
  REQUIRE(killed);
  CHECK(killed->signal == SIGTERM);
  CHECK(Clock::now() - t0 < 2000ms);
  // A launch that cannot start is an exit with 127; a duplicate name is ignored while running.
  controller.command(launch_of("t-again", "exec sleep 30", dir.path / "ck"));
  controller.command(LaunchCommand{"t-bad", 8, 0, 0, {"schedlab-no-such-program"}, {}, ""});
  auto bad = controller.wait_report("t-bad", TaskState::exited);
  REQUIRE(bad);
  CHECK(bad->exit_code == 127);
  CHECK(a.logged("task t-bad: cannot start 'schedlab-no-such-program': not found in PATH"));
  controller.command(launch_of("t-again", "exit 0", dir.path / "ck"));
  CHECK(controller.wait_for([&] { return a.logged("task t-again: launch ignored, it is already running"); }));
  CHECK(a.agent().running_tasks() == 1);
  a.agent().stop();
  CHECK(a.exit_code(3000ms) == 0);
  CHECK(a.agent().running_tasks() == 0);
}

TEST_CASE("Emu.Agent.a_restarted_controller_is_told_which_tasks_still_run") {
  ScratchDir dir("restart");
  auto controller = std::make_unique<FakeController>();
  const auto port = controller->port();
  RunningAgent a(port, dir.path);
  REQUIRE(controller->wait_for([&] { return !controller->registrations.empty(); }));
  const auto ck = dir.path / "ck";
  controller->command(launch_of("survivor", "echo $$ > $SCHEDLAB_CHECKPOINT_DIR/pid; exec sleep 30", ck));
  REQUIRE(controller->wait_report("survivor", TaskState::running));
  const pid_t pid = pid_from(ck / "pid");

  // The controller forgets this incarnation: 409, and the agent registers again listing its task.
  controller->forget();
  REQUIRE(controller->wait_for([&] { return controller->registrations.size() >= 2; }));
  const auto second = controller->registered().at(1);
  REQUIRE(second.tasks.size() == 1);
  CHECK(second.tasks[0].task == "survivor");
  CHECK(a.logged("controller does not know agent-1"));

  // The controller process goes away and a new one binds the same port.
  controller.reset();
  std::this_thread::sleep_for(300ms);  // the agent finds nobody there meanwhile
  CHECK(process_alive(pid));           // its task keeps running
  FakeController again(port);
  REQUIRE(again.wait_for([&] { return !again.registrations.empty(); }));
  const auto reg = again.registered().at(0);
  REQUIRE(reg.tasks.size() == 1);
  CHECK(reg.tasks[0].task == "survivor");
  CHECK(reg.tasks[0].job == 7);
  CHECK(reg.tasks[0].run == 1);
  CHECK(reg.tasks[0].state == TaskState::running);
  CHECK(a.logged("lost"));
  CHECK(process_alive(pid));
  a.agent().stop();
  CHECK(a.exit_code(3000ms) == 0);
  CHECK_FALSE(process_alive(pid));
  // Its exit reached the new controller before the agent left.
  CHECK(again.wait_report("survivor", TaskState::signaled, 500ms));
}

TEST_CASE("Emu.Agent.a_controller_lost_beyond_the_timeout_ends_the_tasks_and_exits_1") {
  ScratchDir dir("lost");
  auto controller = std::make_unique<FakeController>();
  RunningAgent a(controller->port(), dir.path, 600ms);
  REQUIRE(controller->wait_for([&] { return !controller->registrations.empty(); }));
  const auto ck = dir.path / "ck";
  controller->command(launch_of("orphan", "echo $$ > $SCHEDLAB_CHECKPOINT_DIR/pid; exec sleep 30", ck));
  REQUIRE(controller->wait_report("orphan", TaskState::running));
  const pid_t pid = pid_from(ck / "pid");
  const auto t0 = Clock::now();
  controller.reset();
  CHECK(a.exit_code(3000ms) == 1);
  const auto took = Clock::now() - t0;
  CHECK(took >= 400ms);  // the last contact was at most one poll (200 ms) before
  CHECK(took < 2500ms);
  CHECK_FALSE(process_alive(pid));
  CHECK(a.logged("(--lost-timeout): killing 1 task(s), exiting 1"));
}

TEST_CASE("Emu.Agent.an_unreachable_controller_at_start_is_retried_until_the_timeout") {
  ScratchDir dir("never");
  std::uint16_t port;
  {
    FakeController probe;
    port = probe.port();
  }
  RunningAgent a(port, dir.path, 300ms);
  CHECK(a.exit_code(2000ms) == 1);
  CHECK(a.logged("connection refused"));
}

TEST_CASE("Emu.Agent.a_launched_task_is_reported_running_at_once_on_the_report_connection") {
  // Not only with the next poll: that one first reads every task's progress file, and a held
  // poll cannot carry it at all.
  ScratchDir dir("agent-started");
  FakeController ctl;
  RunningAgent agent(ctl.port(), dir.path / "work");
  REQUIRE(ctl.wait_for([&] { return ctl.polls > 0; }));
  ctl.command(launch_of("t-started", "sleep 5", ""));
  CHECK(ctl.wait_for([&] {
    for (const auto& r : ctl.by_report)
      if (r.task == "t-started" && r.state == TaskState::running && r.job == 7 && r.run == 1) return true;
    return false;
  }));
  CHECK(agent.agent().running_tasks() == 1);
}

}  // namespace schedlab::emu::agent_test
