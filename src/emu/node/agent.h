// The node agent (`schedlab agent`): one per emulated host. It registers with the controller,
// long-polls it for commands (the poll is its heartbeat and carries its tasks' progress),
// launches and kills task processes, and reports each start and each exit at once. It survives losing the
// controller as a Mesos agent does: its tasks keep running and it registers again listing
// them; only a controller lost for longer than `lost_timeout` makes it kill its tasks and
// give up. Everything it starts, it stops before run() returns.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "emu/net/http_client.h"
#include "emu/net/http_server.h"
#include "emu/process.h"
#include "emu/protocol.h"

namespace schedlab::emu {

struct AgentOptions {
  std::string controller_host = "127.0.0.1";
  std::uint16_t controller_port = 0;
  std::string host;                  // the emulated host's name
  std::vector<std::uint32_t> gpus;   // real GPU indices, or 0..N-1 when virtual
  bool virtual_gpus = true;
  std::string token;                 // bearer token ("" for none)
  std::string work_dir;              // task logs, progress files, tasks' working folder (created)
  std::chrono::milliseconds lost_timeout{60000};  // controller unreachable this long: give up (exit 1)
  std::chrono::milliseconds poll_wait{1000};      // wait_ms asked for (capped by the heartbeat interval)
  std::chrono::milliseconds request_margin{5000};  // a request's timeout beyond the poll's wait
  std::chrono::milliseconds reap_interval{10};     // how often task exits are looked for
  std::chrono::milliseconds stop_grace{10000};     // kill sequence on stop, shutdown and giving up
  std::chrono::milliseconds retry_min{100};        // backoff between attempts to reach the controller
  std::chrono::milliseconds retry_max{2000};
  LogFunction log;  // one line per event (default: standard error, prefixed with the host)
};

class Agent {
 public:
  explicit Agent(AgentOptions options);
  // Kills (SIGKILL) whatever is still running: only after run() threw.
  ~Agent();
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  // Serves the controller until told to stop. Returns 0 after a shutdown command or stop(),
  // 1 when the controller stayed unreachable for longer than lost_timeout. Its tasks have
  // ended (kill sequence) by the time it returns.
  int run();
  // Thread-safe (not async-signal-safe): run() kills the tasks and returns 0.
  void stop();

  // For tests and logs: the current registration's agent_id ("" when not registered), and
  // the tasks that have not ended.
  std::string agent_id() const;
  std::size_t running_tasks() const;

 private:
  struct Task {
    LaunchCommand launch;
    Process process;
    std::string progress_file;
    std::optional<double> progress;
  };
  struct Finished {
    std::uint64_t seq;
    TaskReport report;
  };

  void log(const std::string& line) const;
  std::vector<TaskReport> running_reports();  // under mu_
  TaskReport report_of(Task& t, TaskState state, int code);  // under mu_
  void launch(const LaunchCommand& c);
  void kill_task(const KillCommand& c);
  void kill_all();  // under mu_
  void reaper_loop();
  void reporter_loop();
  // Sends the tasks started since the last report and the exits not yet acknowledged (a report);
  // forgets the exits once the controller has them.
  void deliver_finished(HttpClient& client, std::chrono::milliseconds timeout);
  void forget_delivered(std::uint64_t up_to_seq);  // under mu_
  bool sleep_for(std::chrono::milliseconds d);     // false when stopped meanwhile
  // Ends every task (kill sequence), then reports their exits when `report`.
  void finish(HttpClient& client, bool report);

  AgentOptions opt_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Task> tasks_;   // launched, not yet ended
  std::vector<Finished> finished_;     // ended, not yet acknowledged by the controller
  // Launched since the last report: their "running" goes at once on the reporter's connection
  // (best effort: every poll lists every running task anyway).
  std::vector<TaskReport> started_;
  std::uint64_t next_finished_seq_ = 1;
  std::uint64_t next_task_file_ = 1;
  bool new_exits_ = false;  // news for the reporter: exits, or started_ not empty
  std::string agent_id_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> reaper_done_{false};
  bool killing_all_ = false;
};

// A file-name-safe form of a task name: [A-Za-z0-9._-] kept, every other byte '_', at most
// 80 characters.
std::string safe_file_name(std::string_view name);

// A launch's CUDA_VISIBLE_DEVICES ("0,2": the host's GPU slots, as the controller numbers them)
// as the real indices of an agent started with --gpus `gpus`. InputError for a slot it lacks.
std::string real_gpu_indices(const std::string& slots, const std::vector<std::uint32_t>& gpus);

}  // namespace schedlab::emu
