// The controller's API routes (emu/controller/api.h) over loopback HTTP, answered by a loop
// thread that advances a wall clock over a stand-in run: the views of the cluster, the jobs,
// the queue and the services; a submission, a stop and a scale as the loop answers them (201,
// 422, 200, 404, 409); the 400s that never reach the loop. The parsers' own cases are in
// test_api.cpp; the routes against a real run in the emulate e2e.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "emu/controller/api.h"
#include "emu/controller/emu_executor.h"
#include "emu/net/http_client.h"
#include "emu/net/http_server.h"
#include "support/sim_harness.h"

namespace schedlab::emu {
namespace {

using namespace std::chrono_literals;

struct NoAgents final : AgentLink {
  void send(cluster::HostId, Command) override {}
  std::string address_of(cluster::HostId) const override { return "127.0.0.1"; }
};

// A run of two jobs (1 running on h0, 2 waiting) and one service "web" (2 instances, 1
// running); "cold" is a service none of whose instances has arrived. It notes what the API
// asked of it; jobs of more than 8 GPUs never run.
struct StandInRun final : sim::OutsideEvents {
  std::mutex mu;
  std::vector<sim::SubmittedJob> submitted;
  std::vector<workload::JobId> killed;
  std::vector<std::pair<std::string, std::uint32_t>> scaled;

  void run_ended(sim::RunId, engine::Time) override {}
  void run_failed(sim::RunId, cluster::HostId, engine::Time) override {}
  void host_lost(cluster::HostId, engine::Time) override {}
  void host_back(cluster::HostId, engine::Time) override {}
  std::optional<std::string> never_runs(const sim::SubmittedJob& job) override {
    if (job.spec.tasks * job.spec.gpus_per_task > 8) return "needs more than the cluster's 8 GPUs";
    return std::nullopt;
  }
  workload::JobId submit(const sim::SubmittedJob& job, engine::Time) override {
    std::lock_guard lock(mu);
    submitted.push_back(job);
    return 10 + static_cast<workload::JobId>(submitted.size());
  }
  bool kill(workload::JobId id, engine::Time) override {
    std::lock_guard lock(mu);
    killed.push_back(id);
    return id == 2;
  }
  std::optional<sim::ServiceScaled> scale_service(const std::string& name, std::uint32_t instances,
                                                  engine::Time) override {
    std::lock_guard lock(mu);
    scaled.emplace_back(name, instances);
    if (name == "web") return sim::ServiceScaled{2, instances, false};
    if (name == "cold") return sim::ServiceScaled{0, 0, true};
    return std::nullopt;
  }
  void inspect(sim::RunView& out, std::size_t limit, bool queue_only) const override {
    out.hosts = {{4, 0, 0}, {4, 3, 1}};
    out.services = {{"web", 2, 1}};
    out.active_jobs = 2;
    out.running_jobs = 1;
    out.pending_jobs = 1;
    sim::RunView::Job running;
    running.id = 1;
    running.name = "bert";
    running.user = "ana";
    running.state = sched::JobState::running;
    running.tasks = 1;
    running.gpus_per_task = 4;
    running.placement = "h0:0-3";
    running.work_done_s = 30;
    running.work_total_s = 60;
    sim::RunView::Job waiting;
    waiting.id = 2;
    waiting.state = sched::JobState::pending;
    waiting.tasks = 2;
    waiting.gpus_per_task = 4;
    waiting.queue_position = 1;
    waiting.waiting = "needs 8 free GPUs, 3 are free";
    if (!queue_only) out.jobs.push_back(running);
    out.jobs.push_back(waiting);
    if (out.jobs.size() > limit && limit > 0) out.jobs.resize(limit);
  }
};

// The API on a loopback server; a loop thread advances the clock (delivering what the routes
// post) until the fixture ends. Everything it starts, it stops.
struct Api {
  cluster::GpuCatalog catalog = testing::small_catalog();
  cluster::Topology topo{testing::uniform_cluster(1, 2, 4), catalog};
  std::unique_ptr<perf::PerfModel> perf = perf::make_trace_rate_model();
  NoAgents agents;
  EmuExecutor executor{topo, *perf, agents, EmuExecutorOptions{}};
  std::atomic<bool> done{false};
  WallClock clock{1000, [this] { return !done.load(); }};
  Inbox inbox{clock, executor};
  StandInRun run;
  Router router;
  std::unique_ptr<HttpServer> server;
  std::thread loop;
  std::unique_ptr<HttpClient> client;

  Api() {
    add_api_routes(router, clock, inbox, topo,
                   [](cluster::HostId h) { return h == 0 ? std::string("up") : std::string("lost"); });
    server = std::make_unique<HttpServer>(HttpServerOptions{}, router.handler(), [](const std::string&) {});
    server->start();
    loop = std::thread([this] {
      while (!done.load()) clock.advance(engine::kTimeMax, run);
    });
    client = std::make_unique<HttpClient>("127.0.0.1", server->port());
  }
  ~Api() {
    client.reset();
    server->stop();
    done = true;
    clock.post([](engine::Time, sim::OutsideEvents&) {});  // wakes the loop at once
    loop.join();
  }
  HttpResult get(const std::string& target) { return client->request("GET", target, "", 5000ms); }
  HttpResult post(const std::string& target, const std::string& body) {
    return client->request("POST", target, body, 5000ms);
  }
};

nlohmann::json json_of(const HttpResult& r) {
  REQUIRE(r.answered());
  return nlohmann::json::parse(r.body);
}

}  // namespace

TEST_CASE("Emu.ApiRoutes.cluster_jobs_queue_and_services_are_the_loops_views") {
  Api api;
  const auto cluster = api.get("/v1/cluster");
  CHECK(cluster.status == 200);
  const auto c = json_of(cluster);
  CHECK(c["gpus"] == 8);
  CHECK(c["free_gpus"] == 3);
  CHECK(c["down_gpus"] == 1);
  CHECK(c["running_jobs"] == 1);
  CHECK(c["pending_jobs"] == 1);
  REQUIRE(c["hosts"].size() == 2);
  CHECK(c["hosts"][0]["host"] == "h0");
  CHECK(c["hosts"][0]["agent"] == "up");
  CHECK(c["hosts"][1]["agent"] == "lost");
  CHECK(c["version"] == 1);

  const auto jobs = json_of(api.get("/v1/jobs"));
  CHECK(jobs["active_jobs"] == 2);
  REQUIRE(jobs["jobs"].size() == 2);
  CHECK(jobs["jobs"][0]["name"] == "bert");
  CHECK(jobs["jobs"][0]["state"] == "running");
  CHECK(jobs["jobs"][0]["placement"] == "h0:0-3");
  CHECK_FALSE(jobs["jobs"][0].contains("queue_position"));  // only a waiting job has one
  CHECK(jobs["jobs"][1]["queue_position"] == 1);
  CHECK(jobs["jobs"][1]["waiting"] == "needs 8 free GPUs, 3 are free");
  CHECK(json_of(api.get("/v1/jobs?limit=1"))["jobs"].size() == 1);

  const auto queue = json_of(api.get("/v1/queue"));
  CHECK(queue["pending_jobs"] == 1);
  REQUIRE(queue["jobs"].size() == 1);
  CHECK(queue["jobs"][0]["id"] == 2);

  const auto services = json_of(api.get("/v1/services"));
  REQUIRE(services["services"].size() == 1);
  CHECK(services["services"][0] == nlohmann::json{{"name", "web"}, {"instances", 2}, {"running", 1}});
}

TEST_CASE("Emu.ApiRoutes.submit_is_201_with_the_loops_id_422_for_a_job_that_never_runs") {
  Api api;
  const auto ok = api.post("/v1/jobs", R"({"version":1,"tasks":2,"gpus_per_task":2,"duration_s":60,"name":"j"})");
  CHECK(ok.status == 201);
  CHECK(json_of(ok)["job"] == 11);
  const auto never = api.post("/v1/jobs", R"({"version":1,"tasks":3,"gpus_per_task":4,"duration_s":60})");
  CHECK(never.status == 422);
  CHECK(json_of(never)["error"] == "needs more than the cluster's 8 GPUs");
  const auto bad = api.post("/v1/jobs", R"({"version":1,"tasks":2})");
  CHECK(bad.status == 400);
  CHECK(json_of(bad)["error"] == "duration_s: missing");
  std::lock_guard lock(api.run.mu);
  REQUIRE(api.run.submitted.size() == 1);  // neither refusal reached submit()
  CHECK(api.run.submitted[0].name == "j");
  CHECK(api.run.submitted[0].spec.tasks == 2);
}

TEST_CASE("Emu.ApiRoutes.stop_is_200_for_an_active_job_404_for_another_or_a_bad_id") {
  Api api;
  const auto ok = api.post("/v1/jobs/2/stop", "");
  CHECK(ok.status == 200);
  CHECK(json_of(ok)["job"] == 2);
  const auto gone = api.post("/v1/jobs/5/stop", "");
  CHECK(gone.status == 404);
  CHECK(json_of(gone)["error"] == "no active job 5 (unknown, or ended already)");
  const auto word = api.post("/v1/jobs/x1/stop", "");
  CHECK(word.status == 404);
  CHECK(json_of(word)["error"] == "no job 'x1': job ids are integers");
  std::lock_guard lock(api.run.mu);
  CHECK(api.run.killed == std::vector<workload::JobId>{2, 5});
}

TEST_CASE("Emu.ApiRoutes.scale_is_200_404_for_an_unknown_service_409_before_its_first_instance") {
  Api api;
  const auto ok = api.post("/v1/services/web/scale", R"({"version":1,"instances":5})");
  CHECK(ok.status == 200);
  const auto o = json_of(ok);
  CHECK(o["service"] == "web");
  CHECK(o["instances_before"] == 2);
  CHECK(o["instances"] == 5);
  const auto unknown = api.post("/v1/services/db/scale", R"({"version":1,"instances":1})");
  CHECK(unknown.status == 404);
  CHECK(json_of(unknown)["error"] == "no service 'db' in this run");
  const auto cold = api.post("/v1/services/cold/scale", R"({"version":1,"instances":1})");
  CHECK(cold.status == 409);
  CHECK(json_of(cold)["error"].get<std::string>().starts_with("service 'cold' has not started yet"));
  const auto bad = api.post("/v1/services/web/scale", R"({"version":1})");
  CHECK(bad.status == 400);
  std::lock_guard lock(api.run.mu);
  CHECK(api.run.scaled.size() == 3);  // the 400 never reached the loop
}

TEST_CASE("Emu.ApiRoutes.a_bad_limit_is_400_before_the_loop_and_unknown_routes_404_or_405") {
  Api api;
  const auto bad = api.get("/v1/queue?limit=0");
  CHECK(bad.status == 400);
  CHECK(json_of(bad)["error"] == "limit: expected an integer from 1 to 100000, got '0'");
  CHECK(api.get("/v1/nothing").status == 404);
  CHECK(api.post("/v1/cluster", "{}").status == 405);
}

}  // namespace schedlab::emu
