// The controller's agent registry, over loopback HTTP: hosts register once each, a second
// registration for a host is counted (fidelity holds it against the comparison), and an agent
// for an unknown host or with the wrong number of GPUs is refused.
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "emu/controller/controller.h"
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

}  // namespace

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
