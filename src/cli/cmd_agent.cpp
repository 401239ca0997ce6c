// `schedlab agent`: a node agent for `schedlab emulate` (one per emulated host).
#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cmath>
#include <ctime>
#include <memory>
#include <optional>
#include <thread>

#include "cli/commands.h"
#include "cli/number_option.h"
#include "emu/endpoint.h"
#include "emu/node/agent.h"
#include "util/error.h"

namespace schedlab::cli {
namespace {

struct AgentCliOptions {
  std::string controller;
  std::string host;
  std::string gpus;
  std::optional<int> virtual_gpus;  // 8 when --gpus is absent
  std::string token_file;
  std::string work_dir;
  double lost_timeout_s = 60;
};

emu::AgentOptions agent_options(const AgentCliOptions& o) {
  emu::AgentOptions a;
  const emu::Endpoint controller = emu::parse_endpoint(o.controller, "--controller");
  a.controller_host = controller.host;
  a.controller_port = controller.port;
  if (o.host.empty()) throw util::InputError("", 0, "--host", "expected the emulated host's name");
  a.host = o.host;
  if (!o.gpus.empty()) {
    a.gpus = emu::parse_gpu_list(o.gpus, "--gpus");
    a.virtual_gpus = false;
  } else {
    const int n = o.virtual_gpus.value_or(8);
    for (int i = 0; i < n; ++i) a.gpus.push_back(static_cast<std::uint32_t>(i));
    a.virtual_gpus = true;
  }
  if (!o.token_file.empty()) {
    util::Notices notices;
    a.token = emu::read_token_file(o.token_file, "--token-file", notices);
  }
  a.work_dir = o.work_dir;
  if (!std::isfinite(o.lost_timeout_s) || o.lost_timeout_s <= 0 || o.lost_timeout_s > 30 * 24 * 3600.0)
    throw util::InputError("", 0, "--lost-timeout", fmt::format("{} s is out of range (0, 2592000]", o.lost_timeout_s));
  a.lost_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(o.lost_timeout_s * 1000)));
  return a;
}

// SIGTERM, SIGINT and SIGHUP are blocked in every thread and taken by one thread with
// sigtimedwait, which asks the agent to stop: the agent then ends its tasks (kill sequence)
// and exits 0. Task processes start with no signal blocked (emu/process.cpp).
int run_agent(emu::AgentOptions options) {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  // A write to a connection the controller closed is an error value, not a reason to die.
  signal(SIGPIPE, SIG_IGN);

  emu::Agent agent(std::move(options));
  std::atomic<bool> done{false};
  std::thread signals([&] {
    while (!done) {
      timespec tick{0, 100 * 1000 * 1000};
      const int sig = sigtimedwait(&stop_signals, nullptr, &tick);
      if (sig > 0) {
        fmt::print(stderr, "schedlab agent: {} received, stopping\n", sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "SIGTERM");
        agent.stop();
      }
    }
  });
  int rc = 1;
  try {
    rc = agent.run();
  } catch (...) {
    done = true;
    signals.join();
    throw;
  }
  done = true;
  signals.join();
  return rc;
}

}  // namespace

void add_agent_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<AgentCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "agent",
      "Run a node agent for `schedlab emulate`: registers with the controller, launches and kills the tasks it is "
      "told to, reports their exits (docs/emulation.md)");
  cmd->add_option("--controller", o->controller, "the controller's ADDR:PORT")->required();
  cmd->add_option("--host", o->host, "the emulated host this agent stands for (a host of the scenario's cluster)")
      ->required();
  auto* gpus = cmd->add_option("--gpus", o->gpus, "real GPU indices, e.g. 0,1,2,3 (tasks get CUDA_VISIBLE_DEVICES)");
  auto* virt = add_number_option(cmd, "--virtual-gpus", o->virtual_gpus,
                                 "this many pretend GPUs (default 8 when --gpus is absent)", {0, 4096});
  gpus->excludes(virt);
  cmd->add_option("--token-file", o->token_file, "file holding the controller's bearer token");
  cmd->add_option("--work-dir", o->work_dir,
                  "folder for task logs and progress files, and the tasks' working folder "
                  "(default: a new folder under the temporary folder)");
  add_number_option(cmd, "--lost-timeout", o->lost_timeout_s,
                  "seconds without reaching the controller before the agent kills its tasks and exits 1 (default 60)");
  cmd->callback([o, &exit_code] { exit_code = run_agent(agent_options(*o)); });
}

}  // namespace schedlab::cli
