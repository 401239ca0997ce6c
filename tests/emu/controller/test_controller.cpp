// The controller's agent registry, over loopback HTTP: hosts register once each, a second
// registration for a host is counted (fidelity holds it against the comparison), and an agent
// for an unknown host or with the wrong number of GPUs is refused. What agents report reaches
// the loop once: a task's "running" is news the first time an incarnation says it.
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "emu/controller/controller.h"
#include "emu/controller/inbox.h"
#include "emu/net/http_client.h"
#include "emu/protocol.h"
#include "support/sim_harness.h"

namespace schedlab::emu {
namespace {

using namespace std::chrono_literals;

HttpResult register_agent(HttpClient& client, const std::string& host, std::uint32_t gpus) {
  RegisterRequest r;
  r.host = host;
  for (std::uint32_t g = 0; g < gpus; ++g) r.gpus.push_back(g);
  return client.request("POST", "/v1/agents/register", to_json(r).dump(), 5000ms);
}

// Counts the kills the executor sends: it kills a still-running task it does not know, so each
// report of a stranger that reaches the loop draws one.
struct KillCountingLink final : AgentLink {
  int kills = 0;
  void send(cluster::HostId, Command c) override { kills += std::holds_alternative<KillCommand>(c) ? 1 : 0; }
  std::string address_of(cluster::HostId) const override { return "127.0.0.1"; }
};

struct NoOutside final : sim::OutsideEvents {
  void run_ended(sim::RunId, engine::Time) override {}
  void run_failed(sim::RunId, cluster::HostId, engine::Time) override {}
  void host_lost(cluster::HostId, engine::Time) override {}
  void host_back(cluster::HostId, engine::Time) override {}
  workload::JobId submit(const sim::SubmittedJob&, engine::Time) override { return 0; }
  bool kill(workload::JobId, engine::Time) override { return false; }
  std::optional<sim::ServiceScaled> scale_service(const std::string&, std::uint32_t, engine::Time) override {
    return std::nullopt;
  }
  void inspect(sim::RunView&, std::size_t, bool) const override {}
};

TaskReport stranger(TaskState state) {
  TaskReport r;
  r.task = "j9-r0-t0";
  r.job = 9;
  r.state = state;
  return r;
}

}  // namespace

TEST_CASE("Emu.Controller.a_tasks_running_reaches_the_loop_once_per_incarnation_of_its_agent") {
  const auto catalog = testing::small_catalog();
  const cluster::Topology topo(testing::uniform_cluster(1, 2, 4), catalog);
  auto perf = perf::make_trace_rate_model();
  KillCountingLink link;
  EmuExecutorOptions eo;
  eo.ports = GangPortsConfig{32500, 3, 4};  // away from the emulator's 29500
  EmuExecutor exec(topo, *perf, link, eo);
  WallClock clock(100, [] { return false; });
  Inbox inbox(clock, exec);
  NoOutside outside;
  // Runs what the controller posted (it posts before it answers).
  auto drain = [&] { clock.advance(engine::kTimeMax, outside); };

  ControllerOptions o;
  o.heartbeat_timeout_ms = 600000;
  o.log = [](const std::string&) {};
  Controller controller(topo, o);
  controller.attach(inbox);
  controller.start();
  HttpClient client("127.0.0.1", controller.port());
  auto registered = parse_register_response(register_agent(client, "h0", 4).body);
  REQUIRE(registered);
  auto poll = [&](const std::string& id, TaskState state) {
    PollRequest p;
    p.agent_id = id;
    p.host = "h0";
    p.wait_ms = 0;
    p.reports = {stranger(state)};
    return client.request("POST", "/v1/agents/poll", to_json(p).dump(), 5000ms);
  };
  CHECK(poll(registered.value().agent_id, TaskState::running).success());
  drain();
  CHECK(link.kills == 1);
  CHECK(poll(registered.value().agent_id, TaskState::running).success());  // every poll lists it
  drain();
  CHECK(link.kills == 1);

  // A new incarnation listing it tells the loop again (the loop may have lost the host meanwhile).
  RegisterRequest again;
  again.host = "h0";
  again.gpus = {0, 1, 2, 3};
  again.tasks = {stranger(TaskState::running)};
  auto second =
      parse_register_response(client.request("POST", "/v1/agents/register", to_json(again).dump(), 5000ms).body);
  REQUIRE(second);
  drain();
  CHECK(link.kills == 2);
  CHECK(poll(second.value().agent_id, TaskState::running).success());
  drain();
  CHECK(link.kills == 2);
  // Its exit goes through; a task of the same name running after it is news again.
  CHECK(poll(second.value().agent_id, TaskState::exited).success());
  CHECK(poll(second.value().agent_id, TaskState::running).success());
  drain();
  CHECK(link.kills == 3);
  controller.stop();
}

TEST_CASE("Emu.Controller.each_host_registers_and_a_second_registration_is_counted") {
  const auto catalog = testing::small_catalog();
  const cluster::Topology topo(testing::uniform_cluster(1, 2, 4), catalog);
  ControllerOptions o;
  o.heartbeat_timeout_ms = 600000;  // no agent here polls: none may be declared lost meanwhile
  o.log = [](const std::string&) {};
  Controller controller(topo, o);
  controller.start();
  HttpClient client("127.0.0.1", controller.port());

  std::string missing;
  CHECK_FALSE(controller.wait_for_agents(10ms, missing));
  CHECK(missing.find("h0") != std::string::npos);

  CHECK(register_agent(client, "h0", 4).success());
  CHECK(register_agent(client, "h1", 4).success());
  CHECK(controller.wait_for_agents(1000ms, missing));
  CHECK(controller.reregistrations() == 0);

  const HttpResult again = register_agent(client, "h0", 4);  // the agent of h0 came back
  CHECK(again.success());
  CHECK(controller.reregistrations() == 1);

  const HttpResult unknown = register_agent(client, "h9", 4);
  CHECK(unknown.status == 409);
  CHECK(unknown.body.find("host 'h9' is not in the cluster") != std::string::npos);
  const HttpResult wrong = register_agent(client, "h1", 8);
  CHECK(wrong.status == 409);
  CHECK(wrong.body.find("has 4 GPUs in the cluster, the agent offers 8") != std::string::npos);
  CHECK(controller.reregistrations() == 1);  // refusals are not registrations
  controller.stop();
}

}  // namespace schedlab::emu
