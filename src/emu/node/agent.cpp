// The node agent: three threads. The main one talks to the controller (register, then poll
// and carry out commands); the reaper looks for task exits every few milliseconds and drives
// the kill sequences, touching nothing but local processes so that a slow controller cannot
// delay a SIGKILL; the reporter sends each start and each exit at once on its own connection,
// because the main thread's poll may be held open by the controller.
#include "emu/node/agent.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "emu/endpoint.h"
#include "emu/net/http_client.h"
#include "util/error.h"
#include "util/parse.h"

namespace schedlab::emu {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

// The work done that a task last wrote to its progress file: one finite number >= 0.
// Nothing (keep the previous value) while the file is absent or half written.
std::optional<double> read_progress_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  char buf[64];
  f.read(buf, sizeof buf);
  const auto n = f.gcount();
  if (n <= 0 || n == static_cast<std::streamsize>(sizeof buf)) return std::nullopt;
  std::string_view text(buf, static_cast<std::size_t>(n));
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  double v;
  if (!util::try_parse_double(text, v)) return std::nullopt;
  if (!std::isfinite(v) || v < 0) return std::nullopt;
  return v;
}

// mkdir -p, the last folder private (0700) to the agent's user, as checkpoints may hold
// anything a job computes.
void make_private_folder(const fs::path& dir) {
  std::error_code ec;
  if (dir.has_parent_path()) {
    fs::create_directories(dir.parent_path(), ec);
    if (ec) throw util::EnvironmentError(fmt::format("cannot create {}: {}", dir.parent_path().string(), ec.message()));
  }
  if (::mkdir(dir.c_str(), 0700) == 0) return;
  if (errno != EEXIST)
    throw util::EnvironmentError(fmt::format("cannot create {}: {}", dir.string(), std::strerror(errno)));
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw util::EnvironmentError(fmt::format("checkpoint folder {} exists and is not a folder", dir.string()));
  if ((st.st_mode & 0777) != 0700 && ::chmod(dir.c_str(), 0700) != 0)
    throw util::EnvironmentError(fmt::format("cannot make {} private (0700): {}", dir.string(), std::strerror(errno)));
}

milliseconds until(Clock::time_point t) {
  return std::max(milliseconds(0), std::chrono::duration_cast<milliseconds>(t - Clock::now()));
}

}  // namespace

std::string safe_file_name(std::string_view name) {
  std::string out;
  for (unsigned char c : name) {
    if (out.size() >= 80) break;
    out += std::isalnum(c) || c == '.' || c == '_' || c == '-' ? static_cast<char>(c) : '_';
  }
  if (out.empty() || out == "." || out == "..") out = "task";
  return out;
}

Agent::Agent(AgentOptions options) : opt_(std::move(options)) {
  if (opt_.work_dir.empty())
    opt_.work_dir =
        (fs::temp_directory_path() / fmt::format("schedlab-agent-{}-{}", safe_file_name(opt_.host), ::getpid())).string();
}

Agent::~Agent() {
  // Normally empty: run() ends every task. The Process destructors kill and reap the rest.
  std::lock_guard lock(mu_);
  tasks_.clear();
}

void Agent::log(const std::string& line) const {
  if (opt_.log)
    opt_.log(line);
  else
    fmt::print(stderr, "schedlab agent {}: {}\n", opt_.host, line);
}

std::string Agent::agent_id() const {
  std::lock_guard lock(mu_);
  return agent_id_;
}

std::size_t Agent::running_tasks() const {
  std::lock_guard lock(mu_);
  return tasks_.size();
}

void Agent::stop() {
  {
    std::lock_guard lock(mu_);  // so that no waiter misses the change
    stop_ = true;
  }
  cv_.notify_all();
}

bool Agent::sleep_for(milliseconds d) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, d, [&] { return stop_.load(); });
  return !stop_;
}

TaskReport Agent::report_of(Task& t, TaskState state, int code) {
  if (auto p = read_progress_file(t.progress_file)) t.progress = p;
  TaskReport r;
  r.task = t.launch.task;
  r.job = t.launch.job;
  r.run = t.launch.run;
  r.rank = t.launch.rank;
  r.state = state;
  if (state == TaskState::exited) r.exit_code = code;
  if (state == TaskState::signaled) r.signal = code;
  r.progress = t.progress;
  return r;
}

std::vector<TaskReport> Agent::running_reports() {
  std::vector<TaskReport> out;
  for (auto& [name, t] : tasks_) out.push_back(report_of(t, TaskState::running, 0));
  return out;
}

std::string real_gpu_indices(const std::string& slots, const std::vector<std::uint32_t>& gpus) {
  std::string out;
  for (const auto& slot : parse_gpu_list(slots, "CUDA_VISIBLE_DEVICES")) {
    if (slot >= gpus.size())
      throw util::InputError("", 0, "CUDA_VISIBLE_DEVICES",
                             fmt::format("GPU slot {} of a host with {} GPU(s)", slot, gpus.size()));
    out += fmt::format("{}{}", out.empty() ? "" : ",", gpus[slot]);
  }
  return out;
}

void Agent::launch(const LaunchCommand& c) {
  std::lock_guard lock(mu_);
  if (killing_all_) return log(fmt::format("task {}: launch ignored, the agent is stopping", c.task));
  if (tasks_.count(c.task)) return log(fmt::format("task {}: launch ignored, it is already running", c.task));
  const std::string base =
      (fs::path(opt_.work_dir) / fmt::format("task-{}-{}", next_task_file_++, safe_file_name(c.task))).string();
  Task t;
  t.launch = c;
  t.progress_file = base + ".progress";
  ProcessSpec spec;
  spec.argv = c.argv;
  spec.env = c.env;
  spec.work_dir = opt_.work_dir;
  spec.log_file = base + ".log";
  spec.die_with_parent = true;
  spec.env["SCHEDLAB_PROGRESS_FILE"] = t.progress_file;
  try {
    // The controller numbers a host's GPUs 0..N-1; an agent of real GPUs turns those slots into
    // the indices it was given (--gpus 4,5,6,7: slot 0 is GPU 4).
    if (auto v = spec.env.find("CUDA_VISIBLE_DEVICES"); v != spec.env.end() && !opt_.virtual_gpus)
      v->second = real_gpu_indices(v->second, opt_.gpus);
    if (!c.checkpoint_dir.empty()) {
      fs::path dir(c.checkpoint_dir);
      if (dir.is_relative()) dir = fs::path(opt_.work_dir) / dir;
      make_private_folder(dir.lexically_normal());
      spec.env["SCHEDLAB_CHECKPOINT_DIR"] = dir.lexically_normal().string();
    }
    t.process = Process::spawn(spec);
  } catch (const std::exception& e) {
    // A launch that cannot happen is a task that failed at once, as a shell's 127 says.
    log(fmt::format("task {}: {}", c.task, e.what()));
    std::ofstream(spec.log_file, std::ios::app) << "schedlab agent: " << e.what() << "\n";
    finished_.push_back(Finished{next_finished_seq_++, report_of(t, TaskState::exited, 127)});
    new_exits_ = true;
    cv_.notify_all();
    return;
  }
  log(fmt::format("task {} (job {} run {} rank {}) started, pid {}, log {}", c.task, c.job, c.run, c.rank,
                  t.process.pid(), spec.log_file));
  // Told at once, not with the next poll: the run's scheduling latency ends when its last task
  // is heard of, and the poll would first read every task's progress file.
  TaskReport started;
  started.task = c.task;
  started.job = c.job;
  started.run = c.run;
  started.rank = c.rank;
  started.state = TaskState::running;
  started_.push_back(std::move(started));
  new_exits_ = true;
  cv_.notify_all();
  tasks_.emplace(c.task, std::move(t));
}

void Agent::kill_task(const KillCommand& c) {
  std::lock_guard lock(mu_);
  auto it = tasks_.find(c.task);
  if (it == tasks_.end()) return log(fmt::format("task {}: kill ignored, not running (its exit is reported)", c.task));
  it->second.process.kill(milliseconds(c.grace_ms));
}

void Agent::kill_all() {
  killing_all_ = true;
  for (auto& [name, t] : tasks_) t.process.kill(opt_.stop_grace);
}

void Agent::reaper_loop() {
  std::unique_lock lock(mu_);
  while (!reaper_done_) {
    if (stop_ && !killing_all_) kill_all();
    bool ended = false;
    for (auto it = tasks_.begin(); it != tasks_.end();) {
      auto status = it->second.process.poll();
      if (!status) {
        ++it;
        continue;
      }
      const bool exited = status->kind == ExitStatus::Kind::exited;
      log(fmt::format("task {} {}", it->first, status->describe()));
      finished_.push_back(
          Finished{next_finished_seq_++, report_of(it->second, exited ? TaskState::exited : TaskState::signaled,
                                                   status->code)});
      it = tasks_.erase(it);
      ended = true;
    }
    if (ended) {
      new_exits_ = true;
      cv_.notify_all();
    }
    cv_.wait_for(lock, opt_.reap_interval, [&] { return reaper_done_.load() || (stop_ && !killing_all_); });
  }
}

void Agent::forget_delivered(std::uint64_t up_to_seq) {
  std::erase_if(finished_, [&](const Finished& f) { return f.seq <= up_to_seq; });
}

void Agent::deliver_finished(HttpClient& client, milliseconds timeout) {
  ReportRequest req;
  std::uint64_t last = 0;
  {
    std::lock_guard lock(mu_);
    new_exits_ = false;
    if (agent_id_.empty()) return;
    req.reports = std::move(started_);
    started_.clear();
    if (req.reports.empty() && finished_.empty()) return;
    req.agent_id = agent_id_;
    req.host = opt_.host;
    for (const auto& f : finished_) {
      req.reports.push_back(f.report);
      last = f.seq;
    }
  }
  HttpResult res = client.request("POST", "/v1/agents/report", dump_json(to_json(req)), timeout);
  if (res.success()) {
    std::lock_guard lock(mu_);
    forget_delivered(last);
  }
  // Otherwise they stay queued: the next report or poll carries them.
}

void Agent::reporter_loop() {
  HttpClient client(opt_.controller_host, opt_.controller_port, opt_.token);
  auto last_attempt = Clock::now();
  std::unique_lock lock(mu_);
  while (!reaper_done_) {
    // At once for a start or a new exit; every second for exits that could not be delivered yet.
    cv_.wait_for(lock, milliseconds(1000), [&] { return reaper_done_.load() || new_exits_; });
    if (reaper_done_) break;
    const bool due = new_exits_ || (!finished_.empty() && Clock::now() - last_attempt >= milliseconds(1000));
    if (!due) continue;
    lock.unlock();
    last_attempt = Clock::now();
    deliver_finished(client, opt_.request_margin);
    lock.lock();
  }
}

int Agent::run() {
  std::error_code ec;
  fs::create_directories(opt_.work_dir, ec);
  if (ec)
    throw util::EnvironmentError(fmt::format("cannot create the work folder {}: {}", opt_.work_dir, ec.message()));
  log(fmt::format("{} {} GPUs, controller {}:{}, work folder {}", opt_.gpus.size(), opt_.virtual_gpus ? "virtual" : "real",
                  opt_.controller_host, opt_.controller_port, opt_.work_dir));
  std::thread reaper([this] { reaper_loop(); });
  std::thread reporter([this] { reporter_loop(); });
  // Whichever way run() leaves (an exception included), the helper threads stop and join
  // (and ~Agent kills what still runs).
  struct JoinHelpers {
    Agent& a;
    std::thread& reaper;
    std::thread& reporter;
    ~JoinHelpers() {
      {
        std::lock_guard lock(a.mu_);
        a.reaper_done_ = true;
      }
      a.cv_.notify_all();
      reaper.join();
      reporter.join();
    }
  } join_helpers{*this, reaper, reporter};

  HttpClient client(opt_.controller_host, opt_.controller_port, opt_.token);
  auto last_contact = Clock::now();
  auto backoff = opt_.retry_min;
  auto wait_ms = static_cast<std::uint32_t>(std::min<std::int64_t>(opt_.poll_wait.count(), kMaxPollWaitMs));
  bool lost = false;
  int exit_code = 0;
  while (!stop_) {
    std::string id = agent_id();
    HttpResult res;
    bool contact = false;
    if (id.empty()) {
      RegisterRequest req;
      req.host = opt_.host;
      req.gpus = opt_.gpus;
      req.virtual_gpus = opt_.virtual_gpus;
      {
        // Exits not yet acknowledged too: a controller that restarted meanwhile must not
        // count those tasks as dead with an earlier incarnation of this agent.
        std::lock_guard lock(mu_);
        req.tasks = running_reports();
        for (const auto& f : finished_) req.tasks.push_back(f.report);
      }
      const auto timeout = std::clamp(until(last_contact + opt_.lost_timeout), milliseconds(50), opt_.request_margin);
      res = client.request("POST", "/v1/agents/register", dump_json(to_json(req)), timeout);
      if (res.success()) {
        auto reg = parse_register_response(res.body);
        if (reg) {
          contact = true;
          if (reg.value().heartbeat_interval_ms > 0)
            wait_ms = std::min<std::uint32_t>(
                {static_cast<std::uint32_t>(std::min<std::int64_t>(opt_.poll_wait.count(), kMaxPollWaitMs)),
                 reg.value().heartbeat_interval_ms});
          std::lock_guard lock(mu_);
          agent_id_ = reg.value().agent_id;
          new_exits_ = new_exits_ || !finished_.empty();
          cv_.notify_all();
          log(fmt::format("registered as {} with {} running task(s)", agent_id_, req.tasks.size()));
        } else {
          res.error_message = "malformed answer: " + reg.error().message;
          res.error = TransportError::failed;
        }
      }
    } else {
      PollRequest req;
      req.agent_id = id;
      req.host = opt_.host;
      req.wait_ms = wait_ms;
      std::uint64_t last = 0;
      {
        std::lock_guard lock(mu_);
        req.reports = running_reports();
        for (const auto& f : finished_) {
          req.reports.push_back(f.report);
          last = f.seq;
        }
      }
      res = client.request("POST", "/v1/agents/poll", dump_json(to_json(req)),
                           milliseconds(wait_ms) + opt_.request_margin);
      if (res.success()) {
        auto poll = parse_poll_response(res.body);
        if (poll) {
          contact = true;
          {
            std::lock_guard lock(mu_);
            forget_delivered(last);
          }
          for (const auto& cmd : poll.value().commands) {
            if (const auto* l = std::get_if<LaunchCommand>(&cmd)) launch(*l);
            if (const auto* k = std::get_if<KillCommand>(&cmd)) kill_task(*k);
            if (std::holds_alternative<ShutdownCommand>(cmd)) {
              log("shutdown requested by the controller");
              stop();
            }
          }
        } else {
          res.error_message = "malformed answer: " + poll.error().message;
          res.error = TransportError::failed;
        }
      } else if (res.answered() && res.status == 409) {
        // The controller restarted, or declared this incarnation dead: register again at once.
        log(fmt::format("controller does not know {} ({}); registering again", id, res.describe()));
        std::lock_guard lock(mu_);
        agent_id_.clear();
        continue;
      }
    }
    if (contact) {
      last_contact = Clock::now();
      backoff = opt_.retry_min;
      if (lost) log("controller reached again");
      lost = false;
      continue;
    }
    {
      std::lock_guard lock(mu_);
      agent_id_.clear();
    }
    if (!lost)
      log(fmt::format("controller {}:{} lost ({}); tasks keep running, retrying for up to {} ms", opt_.controller_host,
                      opt_.controller_port, res.describe(), opt_.lost_timeout.count()));
    lost = true;
    const auto deadline = last_contact + opt_.lost_timeout;
    if (Clock::now() >= deadline) {
      log(fmt::format("controller unreachable for {} ms (--lost-timeout): killing {} task(s), exiting 1",
                      opt_.lost_timeout.count(), running_tasks()));
      exit_code = 1;
      break;
    }
    sleep_for(std::min(backoff, std::max(until(deadline), milliseconds(1))));
    backoff = std::min(backoff * 2, opt_.retry_max);
  }

  finish(client, exit_code == 0);
  return exit_code;
}

void Agent::finish(HttpClient& client, bool report) {
  std::unique_lock lock(mu_);
  if (!tasks_.empty()) log(fmt::format("stopping {} task(s) (SIGTERM, SIGKILL after {} ms)", tasks_.size(), opt_.stop_grace.count()));
  kill_all();
  cv_.notify_all();
  // The reaper escalates to SIGKILL after the grace; beyond that only a process stuck in the
  // kernel could remain, and then the agent stops waiting for it.
  const auto deadline = Clock::now() + opt_.stop_grace + milliseconds(5000);
  cv_.wait_until(lock, deadline, [&] { return tasks_.empty(); });
  if (!tasks_.empty()) log(fmt::format("{} task(s) did not end after SIGKILL", tasks_.size()));
  lock.unlock();
  if (report) deliver_finished(client, milliseconds(2000));
}

}  // namespace schedlab::emu
