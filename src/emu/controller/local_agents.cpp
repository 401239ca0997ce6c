// Local agent processes, started, restarted when they die, and stopped.
#include "emu/controller/local_agents.h"

#include <fmt/format.h>

#include <csignal>
#include <filesystem>

namespace schedlab::emu {

LocalAgents::LocalAgents(const cluster::Topology& topo, LocalAgentsOptions options)
    : topo_(topo), options_(std::move(options)) {}

LocalAgents::~LocalAgents() { stop(std::chrono::milliseconds(0)); }

Process LocalAgents::launch(cluster::HostId host) const {
  const std::string name = fmt::format("h{}", host);
  const std::string dir = fmt::format("{}/agents/{}", options_.work_dir, name);
  std::filesystem::create_directories(dir);
  ProcessSpec spec;
  spec.argv = {options_.self_exe, "agent", "--controller", options_.controller, "--host", name};
  if (options_.real_gpus.empty()) {
    spec.argv.insert(spec.argv.end(), {"--virtual-gpus", std::to_string(topo_.host(host).gpus)});
  } else {
    std::string list;
    for (auto g : options_.real_gpus.at(host)) list += fmt::format("{}{}", list.empty() ? "" : ",", g);
    spec.argv.insert(spec.argv.end(), {"--gpus", list});
  }
  spec.argv.insert(spec.argv.end(), {"--work-dir", dir, "--lost-timeout", std::to_string(options_.lost_timeout_s)});
  if (!options_.token_file.empty()) {
    spec.argv.push_back("--token-file");
    spec.argv.push_back(options_.token_file);
  }
  spec.log_file = fmt::format("{}/agents/{}.log", options_.work_dir, name);
  return Process::spawn(spec);
}

void LocalAgents::start(const std::vector<bool>& adopted) {
  {
    std::lock_guard lock(mu_);
    adopted_.assign(topo_.hosts().size(), false);
    for (cluster::HostId h = 0; h < topo_.hosts().size(); ++h) {
      adopted_[h] = h < adopted.size() && adopted[h];
      agents_.push_back(adopted_[h] ? Process{} : launch(h));
    }
    restart_at_.assign(agents_.size(), {});
  }
  supervisor_ = std::thread([this] { supervise(); });
}

void LocalAgents::supervise() {
  while (!stopping_) {
    {
      std::lock_guard lock(mu_);
      const auto now = std::chrono::steady_clock::now();
      for (std::size_t h = 0; h < agents_.size() && !stopping_; ++h) {
        auto& p = agents_[h];
        if (adopted_[h] || (p.running() && !p.poll())) continue;
        if (restart_at_[h] == std::chrono::steady_clock::time_point{}) {
          restart_at_[h] = now + options_.restart_after;
          continue;
        }
        if (now < restart_at_[h]) continue;
        restart_at_[h] = {};
        try {
          p = launch(static_cast<cluster::HostId>(h));
          ++restarts_;
        } catch (const std::exception&) {
          restart_at_[h] = now + options_.restart_after;  // try again later
        }
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void LocalAgents::kill_agent(cluster::HostId host) {
  std::lock_guard lock(mu_);
  if (host < agents_.size()) agents_[host].signal_group(SIGKILL);
}

void LocalAgents::stop(std::chrono::milliseconds grace) {
  if (!stopping_.exchange(true) && supervisor_.joinable()) supervisor_.join();
  if (supervisor_.joinable()) supervisor_.join();
  std::lock_guard lock(mu_);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  for (auto& p : agents_) {
    while (p.running() && !p.poll() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (p.running()) p.terminate(std::chrono::milliseconds(1000));
  }
  agents_.clear();
}

}  // namespace schedlab::emu
