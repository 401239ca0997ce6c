// The external-scheduler protocol from the scheduler's side, against a real policy process
// (python3, standard library): what the policy is told (hello, ticks with events), and that
// its decisions become the scheduler's starts and stops. Misbehaving policies are in the e2e
// tests (tests/fixtures/external/policy.py), one per check.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include "../support/input_errors.h"
#include "config/scenario.h"
#include "sched/scheduler.h"
#include "sched_fixtures.h"

using namespace schedlab;
using namespace schedlab::testing;
using nlohmann::json;

namespace {
// Records every message it gets in `log`, one per line; starts each submitted job on h0,
// preempts job 0 when job 1 arrives, and asks for a timer at 500 s once.
constexpr const char* kPolicy = R"(
import json, sys
log = open(sys.argv[1], "w")
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    log.write(line); log.flush()
    m = json.loads(line)
    if m["type"] == "hello":
        send({"type": "hello", "protocol": 1, "name": "recorder"})
    elif m["type"] == "tick":
        out = []
        for e in m["events"]:
            if e["event"] == "submit" and e["job"]["id"] == 0:
                out += [{"start": 0, "hosts": ["h0"]}, {"timer": 500}]
            if e["event"] == "submit" and e["job"]["id"] == 1:
                out += [{"preempt": 0}]
        send({"type": "decisions", "decisions": out})
    else:
        break
)";

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() / ("schedlab-ext-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

std::vector<json> lines_of(const std::filesystem::path& p) {
  std::vector<json> out;
  std::ifstream in(p);
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
  return out;
}
}  // namespace

TEST_CASE("Sched.External.protocol_round_trip") {
  TempDir dir;
  std::ofstream(dir.path / "policy.py") << kPolicy;
  const auto log = dir.path / "log.jsonl";
  auto catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 2, 8), catalog);
  cluster::AllocationState alloc(topo);
  sched::SchedulerConfig config;
  config.external.command = "python3 " + (dir.path / "policy.py").string() + " " + log.string();
  std::vector<workload::JobSpec> specs{spec_of(1, 4), spec_of(1, 2)};
  specs[0].id = 0;
  specs[1].id = 1;
  specs[1].submit = 100 * kMicrosPerSecond;
  {
    sched::Scheduler scheduler(config, sched::builtin_parts(), topo);
    std::vector<sched::StartDecision> starts;
    std::vector<sched::StopDecision> stops;

    // Job 0 arrives: the policy starts it on h0 and asks to be called at 500 s.
    scheduler.submit(specs[0], catalog.all(), 0);
    scheduler.schedule(0, alloc, starts, stops);
    REQUIRE(starts.size() == 1);
    CHECK(starts[0].job == 0);
    CHECK(starts[0].slots[0].host == 0);
    CHECK(starts[0].slots[0].gpus == 4);
    CHECK(alloc.whole_free(0) == 4);
    std::vector<sched::TimerRequest> timers;
    scheduler.take_timers(timers);
    REQUIRE(timers.size() == 1);
    CHECK(timers[0].at == 500 * kMicrosPerSecond);

    // Nothing happened: no tick is sent.
    starts.clear();
    scheduler.schedule(50 * kMicrosPerSecond, alloc, starts, stops);
    CHECK(starts.empty());

    // Job 1 arrives: the policy preempts job 0, as one unit (released at once: no save time).
    scheduler.submit(specs[1], catalog.all(), 100 * kMicrosPerSecond);
    scheduler.schedule(100 * kMicrosPerSecond, alloc, starts, stops);
    REQUIRE(stops.size() == 1);
    CHECK(stops[0].job == 0);
    CHECK(stops[0].cause == sched::StopCause::preempted);
    CHECK(stops[0].released);

    // Its timer fires: a tick with a timer event.
    scheduler.on_timer(timers[0].job, timers[0].version, 500 * kMicrosPerSecond);
    scheduler.schedule(500 * kMicrosPerSecond, alloc, starts, stops);
  }  // the scheduler says bye and waits for the policy

  const auto got = lines_of(log);
  REQUIRE(got.size() == 5);
  CHECK(got[0]["type"] == "hello");
  CHECK(got[0]["protocol"] == 1);
  CHECK(got[0]["cluster"]["hosts"].size() == 2);
  CHECK(got[0]["cluster"]["hosts"][1] == json{{"name", "h1"}, {"rack", "r"}, {"model", "V100"}, {"gpus", 8},
                                              {"cpus", 0.0}, {"mem_gb", 0.0}});
  CHECK(got[1]["type"] == "tick");
  CHECK(got[1]["now"] == 0.0);
  REQUIRE(got[1]["events"].size() == 1);
  const auto& job = got[1]["events"][0]["job"];
  CHECK(job["id"] == 0);
  CHECK(job["tasks"] == 1);
  CHECK(job["gpus_per_task"] == 4);
  CHECK(job["gpu_milli"] == 0);
  CHECK(job["duration"] == 100.0);
  CHECK(job["allowed_models"] == json{"V100"});
  CHECK(got[2]["now"] == 100.0);
  REQUIRE(got[2]["events"].size() == 1);  // the stop it decides is told in the next tick
  CHECK(got[2]["events"][0]["event"] == "submit");
  CHECK(got[3]["now"] == 500.0);
  CHECK(got[3]["events"] == json::parse(R"([{"event":"stopped","job":0,"cause":"preempted"},{"at":500.0,"event":"timer"}])"));
  CHECK(got[4] == json{{"type", "bye"}});
}

TEST_CASE("Sched.External.config_is_checked") {
  auto bad = input_error_of([] {
    config::load_scenario(fixture("external/scenario.yaml"),
                          {"scheduler.external={command: 'python3 x.py', on_invalid: maybe}"});
  });
  CHECK(bad.field() == "scheduler.external.on_invalid");
  CHECK(says(bad, "'maybe': expected stop or skip"));
  auto sc = config::load_scenario(fixture("external/scenario.yaml"),
                                  {"scheduler.external={command: 'python3 x.py', timeout_s: 2.5, "
                                   "options: {threshold: 3600, name: a, flags: [1, two]}}"});
  CHECK(sc.scheduler.external.command == "python3 x.py");
  CHECK(sc.scheduler.external.timeout_s == 2.5);
  CHECK(json::parse(sc.scheduler.external.options_json) ==
        json{{"threshold", 3600}, {"name", "a"}, {"flags", {1, "two"}}});
}
