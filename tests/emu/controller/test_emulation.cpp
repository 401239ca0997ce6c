// An emulation's set-up (emu/controller/emulation.h), short of running a loop: the options it
// refuses before it starts anything, the perf models and GPU options it refuses when the run
// is wired, and, with external agents, a controller that waits for every host's agent (an
// environment error, its temporary work folder removed, when none comes; the journal's header
// with the port it got when they all do). The whole emulation runs in the emulate e2e.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "emu/controller/emulation.h"
#include "emu/net/http_client.h"
#include "emu/protocol.h"
#include "support/scratch_dir.h"
#include "support/sim_harness.h"
#include "util/error.h"

namespace schedlab::emu {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// A perf model whose speeds change while runs go (as the placement model's with contention).
struct SharedLinks final : perf::PerfModel {
  std::string name() const override { return "shared"; }
  double speed(const workload::JobSpec&, const cluster::Placement&, const cluster::Topology&) const override {
    return 1;
  }
  bool shares_links() const override { return true; }
};

// TMPDIR pointed at a scratch folder for one test (where an emulation makes its temporary work
// folder), restored after.
struct TmpDirAt {
  std::optional<std::string> before;
  explicit TmpDirAt(const fs::path& dir) {
    if (const char* t = std::getenv("TMPDIR")) before = t;
    ::setenv("TMPDIR", dir.c_str(), 1);
  }
  ~TmpDirAt() {
    if (before)
      ::setenv("TMPDIR", before->c_str(), 1);
    else
      ::unsetenv("TMPDIR");
  }
};

// A thread joined however the test ends (a failed CHECK_THROWS leaves it running otherwise).
struct JoinedThread {
  std::thread t;
  ~JoinedThread() {
    if (t.joinable()) t.join();
  }
};

std::size_t entries(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

std::string input_error(const EmulationOptions& o) {
  util::Notices notices(true);
  try {
    Emulation e(o, notices);
  } catch (const util::InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("Emu.Emulation.refuses_a_speedup_out_of_range_and_an_address_off_loopback_without_a_token") {
  const struct {
    double speedup;
    std::string listen;
    std::string error;  // its start; "" = accepted
  } cases[] = {
      {100, "127.0.0.1:0", ""},
      {1e6, "localhost:0", ""},
      {1, "[::1]:0", ""},
      {0, "127.0.0.1:0", "--speedup: must be in (0, 1e6], got 0"},
      {-2, "127.0.0.1:0", "--speedup: must be in (0, 1e6], got -2"},
      {2e6, "127.0.0.1:0", "--speedup: must be in (0, 1e6], got 2"},
      {100, "0.0.0.0:7070", "--listen: 0.0.0.0 is not a loopback address: give --token-file too"},
      {100, "10.1.2.3:0", "--listen: 10.1.2.3 is not a loopback address"},
      {100, "127.0.0.1", "--listen"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.listen);
    CAPTURE(c.speedup);
    EmulationOptions o;
    o.speedup = c.speedup;
    o.listen = c.listen;
    const std::string got = input_error(o);
    CAPTURE(got);
    if (c.error.empty())
      CHECK(got == "no error");
    else
      CHECK(got.starts_with(c.error));
  }
}

TEST_CASE("Emu.Emulation.loopback_addresses") {
  for (const char* a : {"127.0.0.1", "127.8.0.1", "::1", "localhost"}) CHECK(is_loopback(a));
  for (const char* a : {"0.0.0.0", "::", "10.0.0.1", "128.0.0.1", "localhost.example", ""}) {
    CAPTURE(a);
    CHECK_FALSE(is_loopback(a));
  }
}

TEST_CASE("Emu.Emulation.refuses_shared_link_models_and_gpus_with_external_agents_before_it_starts_anything") {
  testing::ScratchDir tmp("emulation-refusals");
  TmpDirAt at(tmp.path);
  const auto catalog = testing::small_catalog();
  const cluster::Topology topo(testing::uniform_cluster(1, 2, 4), catalog);
  config::Scenario scenario;
  util::Notices notices(true);

  Emulation shared(EmulationOptions{}, notices);
  SharedLinks links;
  auto hooks = shared.hooks(scenario, {});
  REQUIRE(hooks.drive);
  CHECK_THROWS_WITH_AS(hooks.drive(topo, links), doctest::Contains("perf model 'shared': speeds that change"),
                       util::InputError);

  EmulationOptions o;
  o.external_agents = true;
  o.gpus = {0, 1, 2, 3, 4, 5, 6, 7};
  Emulation gpus(o, notices);
  const auto trace = perf::make_trace_rate_model();
  CHECK_THROWS_WITH_AS(gpus.hooks(scenario, {}).drive(topo, *trace),
                       "--gpus: the agents of --external-agents name their own GPUs (schedlab agent --gpus)",
                       util::InputError);
  CHECK(entries(tmp.path) == 0);  // no work folder was made
}

TEST_CASE("Emu.Emulation.external_agents_that_never_come_are_an_environment_error_and_the_work_folder_goes") {
  testing::ScratchDir tmp("emulation-no-agents");
  TmpDirAt at(tmp.path);
  const auto catalog = testing::small_catalog();
  const cluster::Topology topo(testing::uniform_cluster(1, 2, 4), catalog);
  config::Scenario scenario;
  util::Notices notices(true);
  const auto perf = perf::make_trace_rate_model();
  std::string announced;
  {
    EmulationOptions o;
    o.external_agents = true;
    o.agents_timeout = 200ms;
    Emulation e(o, notices);
    auto hooks = e.hooks(scenario, [&](const std::string& line) { announced = line; });
    CHECK_THROWS_WITH_AS(hooks.drive(topo, *perf), "no agent registered within 0.2 s for host(s) h0, h1",
                         util::EnvironmentError);
    CHECK(announced.starts_with("controller listening on 127.0.0.1:"));
    CHECK(entries(tmp.path) == 1);  // its temporary work folder, until it ends
  }
  CHECK(entries(tmp.path) == 0);
}

TEST_CASE("Emu.Emulation.external_agents_registered_the_journal_header_names_the_port_and_the_work_folder") {
  testing::ScratchDir tmp("emulation-agents");
  const fs::path work = tmp.path / "work";
  const auto catalog = testing::small_catalog();
  const cluster::Topology topo(testing::uniform_cluster(1, 2, 4), catalog);
  config::Scenario scenario;
  util::Notices notices(true);
  const auto perf = perf::make_trace_rate_model();
  JoinedThread agents;
  {
    EmulationOptions o;
    o.external_agents = true;
    o.agents_timeout = 5000ms;
    o.work_dir = work.string();
    o.journal_options = {{"scenario", "s.yaml"}};
    Emulation e(o, notices);
    std::string port;
    // Told where the controller listens, two agents (one per host) register from elsewhere.
    auto hooks = e.hooks(scenario, [&](const std::string& line) {
      const auto colon = line.find("127.0.0.1:") + 10;
      port = line.substr(colon, line.find(' ', colon) - colon);
      agents.t = std::thread([port] {
        HttpClient client("127.0.0.1", static_cast<std::uint16_t>(std::stoi(port)));
        for (const char* host : {"h0", "h1"}) {
          RegisterRequest r;
          r.host = host;
          r.gpus = {0, 1, 2, 3};
          client.request("POST", "/v1/agents/register", to_json(r).dump(), 5000ms);
        }
      });
    });
    const sim::Driver driver = hooks.drive(topo, *perf);
    agents.t.join();
    CHECK(driver.clock != nullptr);
    CHECK(driver.executor != nullptr);
    const Journal journal = read_journal((work / "journal.jsonl").string());
    CHECK(journal.options["scenario"] == "s.yaml");
    CHECK(journal.options["listen"] == "127.0.0.1:" + port);
    CHECK(journal.options["work_dir"] == fs::absolute(work).string());
    CHECK(journal.options["temporary_work_dir"] == false);
    CHECK_FALSE(journal.anchor.has_value());  // the clock has not started
    CHECK(fs::is_directory(work / "checkpoints"));
  }
  CHECK(fs::exists(work / "journal.jsonl"));  // a work folder given is the user's: kept
}

}  // namespace schedlab::emu
