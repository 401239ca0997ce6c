// The local agents `schedlab emulate` starts (emu/controller/local_agents.h), with a stand-in
// for the schedlab binary (a shell script that notes its arguments and pid, then sleeps): one
// agent per host but the adopted ones, with the host's options; a killed agent started again
// after the pause; nothing left running after stop().
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "emu/controller/local_agents.h"
#include "support/scratch_dir.h"
#include "support/sim_harness.h"

using namespace schedlab;
using namespace schedlab::emu;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

bool eventually(const std::function<bool()>& ok, std::chrono::milliseconds limit = 5000ms) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (ok()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return ok();
}

std::vector<std::string> lines_of(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

bool alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

// A stand-in for the schedlab binary in `dir`: it notes its command line and pid in its work
// folder (the argument after --work-dir) and sleeps.
fs::path fake_schedlab(const fs::path& dir) {
  const fs::path exe = dir / "fake-schedlab";
  std::ofstream(exe) << "#!/bin/sh\n"
                        "w=''; prev=''\n"
                        "for a in \"$@\"; do [ \"$prev\" = --work-dir ] && w=$a; prev=$a; done\n"
                        "echo \"$*\" >> \"$w/argv\"\n"
                        "echo $$ >> \"$w/pids\"\n"
                        "exec sleep 30\n";
  fs::permissions(exe, fs::perms::owner_all);
  return exe;
}

}  // namespace

TEST_CASE("Emu.LocalAgents.supervise_one_agent_per_host_not_adopted_restarted_when_killed_none_left_after_stop") {
  testing::ScratchDir dir("local-agents");
  const fs::path exe = fake_schedlab(dir.path);

  const cluster::GpuCatalog catalog = testing::small_catalog();
  const cluster::Topology topo(testing::uniform_cluster(1, 3, 4), catalog);
  LocalAgentsOptions o;
  o.self_exe = exe.string();
  o.controller = "127.0.0.1:7070";
  o.token_file = "/tmp/token";
  o.work_dir = dir.path.string();
  o.restart_after = 100ms;
  o.lost_timeout_s = 9;
  LocalAgents agents(topo, o);
  agents.start({false, true});  // host 1's agent outlived an earlier controller: adopted

  const fs::path h0 = dir.path / "agents" / "h0", h2 = dir.path / "agents" / "h2";
  REQUIRE(eventually([&] { return lines_of(h0 / "pids").size() == 1 && lines_of(h2 / "pids").size() == 1; }));
  CHECK(lines_of(h0 / "argv") ==
        std::vector<std::string>{"agent --controller 127.0.0.1:7070 --host h0 --virtual-gpus 4 --work-dir " +
                                 h0.string() + " --lost-timeout 9 --token-file /tmp/token"});
  CHECK_FALSE(fs::exists(dir.path / "agents" / "h1"));  // neither started nor supervised
  CHECK(fs::exists(dir.path / "agents" / "h0.log"));
  CHECK(agents.restarts() == 0);

  // A failure plan kills host 0's agent: it is started again after the pause, with the same options.
  const pid_t first = std::stoi(lines_of(h0 / "pids").at(0));
  agents.kill_agent(0);
  REQUIRE(eventually([&] { return lines_of(h0 / "pids").size() == 2; }));
  CHECK(agents.restarts() == 1);
  CHECK(lines_of(h0 / "argv").at(1) == lines_of(h0 / "argv").at(0));
  CHECK_FALSE(alive(first));

  agents.stop(0ms);
  for (const auto& f : {h0 / "pids", h2 / "pids"})
    for (const auto& pid : lines_of(f)) CHECK_FALSE(alive(std::stoi(pid)));
  agents.stop(0ms);  // idempotent
}

TEST_CASE("Emu.LocalAgents.real_gpus_each_hosts_agent_gets_its_share_of_the_real_gpus") {
  testing::ScratchDir dir("local-agents-gpus");
  const fs::path exe = fake_schedlab(dir.path);
  const cluster::GpuCatalog catalog = testing::small_catalog();
  const cluster::Topology topo(testing::uniform_cluster(1, 2, 2), catalog);
  LocalAgentsOptions o;
  o.self_exe = exe.string();
  o.controller = "127.0.0.1:7070";
  o.work_dir = dir.path.string();
  o.lost_timeout_s = 9;
  o.real_gpus = {{4, 5}, {6, 7}};
  LocalAgents agents(topo, o);
  agents.start();
  const fs::path h0 = dir.path / "agents" / "h0", h1 = dir.path / "agents" / "h1";
  REQUIRE(eventually([&] { return lines_of(h0 / "argv").size() == 1 && lines_of(h1 / "argv").size() == 1; }));
  CHECK(lines_of(h0 / "argv") == std::vector<std::string>{"agent --controller 127.0.0.1:7070 --host h0 --gpus 4,5 "
                                                           "--work-dir " + h0.string() + " --lost-timeout 9"});
  CHECK(lines_of(h1 / "argv") == std::vector<std::string>{"agent --controller 127.0.0.1:7070 --host h1 --gpus 6,7 "
                                                           "--work-dir " + h1.string() + " --lost-timeout 9"});
  agents.stop(std::chrono::milliseconds(0));
}
