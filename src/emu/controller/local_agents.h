// The agents `schedlab emulate` starts itself (unless --external-agents): one `schedlab agent`
// process per host of the cluster, on this machine, each with the host's GPUs as virtual ones (or,
// with `emulate --gpus`, a share of this machine's real GPUs).
// It supervises them as an init system would: an agent that dies (killed by a failure plan,
// or by hand) is started again after a pause, registers again, and its host comes back. A
// resumed emulation adopts the agents that outlived the killed controller and starts (and
// supervises) only the missing ones.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cluster/topology.h"
#include "emu/process.h"

namespace schedlab::emu {

struct LocalAgentsOptions {
  std::string self_exe;     // the schedlab binary
  std::string controller;   // "127.0.0.1:PORT"
  std::string token_file;   // "" for none
  std::string work_dir;     // agents' folders and logs: <work_dir>/agents/h<N>/, h<N>.log
  std::chrono::milliseconds restart_after{1000};
  std::uint32_t lost_timeout_s = 30;  // agents exit when the controller is gone this long
  // `emulate --gpus`: host h's agent gets real_gpus[h] (`agent --gpus`); empty: virtual GPUs.
  std::vector<std::vector<std::uint32_t>> real_gpus;
};

class LocalAgents {
 public:
  LocalAgents(const cluster::Topology& topo, LocalAgentsOptions options);
  ~LocalAgents();  // stop()
  // Starts an agent for every host but those marked in `adopted` (hosts whose agents of an
  // earlier controller came back: they are neither started nor supervised here).
  void start(const std::vector<bool>& adopted = {});
  // Waits up to `grace` for the agents to exit (after the controller told them to), then
  // kills what is left. Idempotent.
  void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(5000));
  // Failure plans: SIGKILL the agent of `host` (it is started again after the pause).
  void kill_agent(cluster::HostId host);
  std::uint64_t restarts() const { return restarts_; }

 private:
  Process launch(cluster::HostId host) const;
  void supervise();

  const cluster::Topology& topo_;
  LocalAgentsOptions options_;
  std::mutex mu_;
  std::vector<Process> agents_;
  std::vector<std::chrono::steady_clock::time_point> restart_at_;
  std::vector<bool> adopted_;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> restarts_{0};
  std::thread supervisor_;
};

}  // namespace schedlab::emu
