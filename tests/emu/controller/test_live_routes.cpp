// The live routes (emu/controller/live_routes.h) over loopback HTTP: /healthz answered by the
// loop (503 before it runs), /metrics as the strict parser reads it with the loop's figures,
// and / the embedded page, self-contained. The metrics text's own cases: test_live_metrics.cpp;
// the page in a real browser during an emulation: the emulate e2e.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>

#include "emu/controller/emu_executor.h"
#include "emu/controller/live_routes.h"
#include "emu/net/http_client.h"
#include "emu/net/http_server.h"
#include "support/prometheus_parser.h"
#include "support/sim_harness.h"

namespace schedlab::emu {
namespace {

using namespace std::chrono_literals;

struct NoAgents final : AgentLink {
  void send(cluster::HostId, Command) override {}
  std::string address_of(cluster::HostId) const override { return "127.0.0.1"; }
};

// Two hosts of 4 GPUs (h0 all busy, h1 one down), one job running, one waiting, 5 finished.
struct ViewOnlyRun final : sim::OutsideEvents {
  void run_ended(sim::RunId, engine::Time) override {}
  void run_failed(sim::RunId, cluster::HostId, engine::Time) override {}
  void host_lost(cluster::HostId, engine::Time) override {}
  void host_back(cluster::HostId, engine::Time) override {}
  workload::JobId submit(const sim::SubmittedJob&, engine::Time) override { return 0; }
  bool kill(workload::JobId, engine::Time) override { return false; }
  std::optional<sim::ServiceScaled> scale_service(const std::string&, std::uint32_t, engine::Time) override {
    return std::nullopt;
  }
  void inspect(sim::RunView& out, std::size_t, bool) const override {
    out.hosts = {{4, 0, 0}, {4, 3, 1}};
    out.pending_jobs = 1;
    out.jobs_by_state[static_cast<std::size_t>(sched::JobState::running)] = 1;
    out.jobs_by_state[static_cast<std::size_t>(sched::JobState::pending)] = 1;
    out.jobs_by_state[static_cast<std::size_t>(sched::JobState::finished)] = 5;
    out.preemptions = 2;
  }
};

// The live routes on a loopback server; with `loop`, a thread advances the clock until the
// fixture ends. Everything it starts, it stops.
struct Live {
  cluster::GpuCatalog catalog = testing::small_catalog();
  cluster::Topology topo{testing::uniform_cluster(1, 2, 4), catalog};
  std::unique_ptr<perf::PerfModel> perf = perf::make_trace_rate_model();
  NoAgents agents;
  EmuExecutor executor{topo, *perf, agents, EmuExecutorOptions{}};
  std::atomic<bool> done{false};
  WallClock clock{1000, [this] { return !done.load(); }};
  ViewOnlyRun run;
  Router router;
  std::unique_ptr<HttpServer> server;
  std::thread loop;
  std::unique_ptr<HttpClient> client;

  explicit Live(bool with_loop, std::string token = "") {
    add_live_routes(router, clock, executor, topo,
                    [](cluster::HostId h) { return h == 0 ? std::string("up") : std::string("lost"); });
    HttpServerOptions so;
    so.token = token;
    so.open_paths = live_open_paths();
    server = std::make_unique<HttpServer>(so, router.handler(), [](const std::string&) {});
    server->start();
    if (with_loop) {
      loop = std::thread([this] {
        while (!done.load()) clock.advance(engine::kTimeMax, run);
      });
      while (!clock.started()) std::this_thread::sleep_for(1ms);
    }
    client = std::make_unique<HttpClient>("127.0.0.1", server->port());
  }
  ~Live() {
    client.reset();
    server->stop();
    done = true;
    if (loop.joinable()) {
      clock.post([](engine::Time, sim::OutsideEvents&) {});  // wakes the loop at once
      loop.join();
    }
  }
  HttpResult get(const std::string& target) { return client->request("GET", target, "", 5000ms); }
};

}  // namespace

TEST_CASE("Emu.LiveRoutes.healthz_is_the_loop_answering_503_before_it_runs_as_metrics_are") {
  {
    Live live(false);
    const auto r = live.get("/healthz");
    REQUIRE(r.answered());
    CHECK(r.status == 503);
    CHECK(nlohmann::json::parse(r.body)["status"] == "starting");
    CHECK(live.get("/metrics").status == 503);  // a failed scrape, not one left waiting
  }
  Live live(true);
  const auto r = live.get("/healthz");
  REQUIRE_MESSAGE(r.success(), r.describe());
  const auto j = nlohmann::json::parse(r.body);
  CHECK(j["status"] == "ok");
  CHECK(j.contains("now_s"));
  CHECK(j["loop_answered_ms"].get<double>() >= 0);
  CHECK(live.client->request("POST", "/healthz", "", 5000ms).status == 405);
}

TEST_CASE("Emu.LiveRoutes.metrics_are_the_loops_figures_in_valid_exposition_text") {
  Live live(true);
  const auto r = live.get("/metrics");
  REQUIRE_MESSAGE(r.success(), r.describe());
  const auto p = testing::parse_prometheus_text(r.body);
  REQUIRE_MESSAGE(p.ok(), p.error, "\n", r.body);
  CHECK(p.value("schedlab_jobs", {{"state", "finished"}}) == 5);
  CHECK(p.value("schedlab_queue_length") == 1);
  const std::string model = live.catalog.model(live.topo.host(0).model).name;
  CHECK(p.value("schedlab_gpus", {{"host", "h0"}, {"model", model}, {"state", "busy"}}) == 4);
  CHECK(p.value("schedlab_gpus", {{"host", "h1"}, {"model", model}, {"state", "down"}}) == 1);
  CHECK(p.value("schedlab_preemptions_total") == 2);
  CHECK(p.value("schedlab_agents_registered") == 1);  // h1's agent is lost
  CHECK(p.value("schedlab_hosts") == 2);
  // The clock has handled instants (this request's, at least) but no run has started.
  CHECK(p.value("schedlab_scheduling_latency_seconds_count") == 0);
}

TEST_CASE("Emu.LiveRoutes.the_page_is_self_contained_and_served_without_the_token") {
  Live live(true, "s3cret-token-0123456789");
  const auto r = live.get("/");
  REQUIRE_MESSAGE(r.success(), r.describe());
  CHECK(r.body.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(r.body.find("/v1/cluster") != std::string::npos);
  CHECK(r.body.find("#token=") != std::string::npos);
  // Nothing fetched from elsewhere: no URL with a scheme, no src or href attribute at all.
  CHECK_FALSE(std::regex_search(r.body, std::regex("https?://|//[a-z]")));
  CHECK_FALSE(std::regex_search(r.body, std::regex("\\s(src|href)\\s*=")));
  // The figures themselves still need it.
  CHECK(live.get("/metrics").status == 401);
  CHECK(live.get("/healthz").status == 401);
}

}  // namespace schedlab::emu
