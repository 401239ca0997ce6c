// The scenario's `workload.services:` and `workload.cron:` lists (config/long_running_config.h):
// what they say, and every mistake refused at its line.
#include <doctest/doctest.h>

#include "../support/input_errors.h"
#include "../support/scratch_dir.h"
#include "config/scenario.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::testing;
using namespace schedlab::config;

TEST_CASE("Config.LongRunning.reads_services_cron_entries_and_the_epoch") {
  const Scenario sc = load_scenario(fixture("scenarios/long_running/services_cron.yaml"));
  const auto& w = sc.workload.long_running;
  REQUIRE(w.services.size() == 2);
  const auto& inf = w.services[0];
  CHECK(inf.name == "inference");
  CHECK(inf.line == 10);
  CHECK(inf.instances == 2);
  CHECK(inf.shape.gpus_per_task == 1);
  CHECK(inf.shape.cpu_milli == 4000);
  CHECK(inf.shape.mem_mib == 16 * 1024);
  CHECK(inf.shape.gpu_model == "A100");
  CHECK(inf.start == 10 * engine::kMicrosPerSecond);
  CHECK(inf.stop == engine::kTimeMax);  // as long as the trace's work
  REQUIRE(inf.scale.size() == 2);
  CHECK(inf.scale[1].at == 200 * engine::kMicrosPerSecond);
  CHECK(inf.scale[1].instances == 1);
  CHECK(inf.backoff == 5 * engine::kMicrosPerSecond);
  CHECK(inf.backoff_factor == 2);
  CHECK(inf.max_backoff == 60 * engine::kMicrosPerSecond);
  const auto& metrics = w.services[1];
  CHECK(metrics.shape.gpus_per_task == 0);  // a service asks for no GPU unless it says so
  CHECK(metrics.stop == 300 * engine::kMicrosPerSecond);
  REQUIRE(w.cron.size() == 2);
  CHECK(w.cron[0].shape.tasks == 2);
  CHECK(w.cron[0].shape.gpus_per_task == 1);  // a cron job's default
  CHECK(w.cron[0].skip_overlap);
  CHECK_FALSE(w.cron[0].schedule.count());  // R: forever (here: until the trace ends)
  CHECK(w.cron[1].schedule.count() == 2u);
  CHECK(w.cron[1].parents == std::vector<std::string>{"etl"});
  CHECK(w.epoch_us == w.cron[0].schedule.start_us);
}

TEST_CASE("Config.LongRunning.until_ends_services_without_a_stop_of_their_own") {
  ScratchDir dir("long-running-until");
  const auto path = dir.path / "until.yaml";
  std::ofstream(path) << "name: until\ncluster: " << fixture("clusters/tiny.yaml") << R"(
workload:
  until_s: 150
  services:
    - {name: web, gpus: 1, scale: [{at_s: 100, instances: 2}, {at_s: 200, instances: 3}]}
)";
  const Scenario sc = load_scenario(path.string());
  const auto& s = sc.workload.long_running.services.at(0);
  CHECK(s.stop == 150 * engine::kMicrosPerSecond);
  REQUIRE(s.scale.size() == 1);  // the step at 200 s lies beyond the run
  CHECK(s.scale[0].instances == 2);
}

TEST_CASE("Config.LongRunning.mistakes_are_refused_at_their_line") {
  const Located cases[] = {
      {"scenarios/long_running/bad_schedule.yaml", 9, "workload.cron.0.schedule", "period"},
      {"scenarios/long_running/unknown_parent.yaml", 9, "workload.cron.1.parents",
       "'elt' is not a cron entry listed before 'report' (closest: 'etl')"},
      {"scenarios/long_running/scale_out_of_order.yaml", 12, "workload.services.0.scale.1.at_s",
       "must be after the previous step's at_s"},
      {"scenarios/long_running/service_pool_typo.yaml", 11, "workload.services.0.pool",
       "'servics' is not a pool (closest: 'services')"},
      {"scenarios/long_running/service_without_end.yaml", 6, "workload.services.0",
       "give stop_s, workload.until_s, a trace or cron entries"},
      {"scenarios/long_running/cpu_service_without_cpus.yaml", 8, "workload.services.0", "needs cpus: when gpus is 0"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.file);
    check_located(input_error_of([&] { load_scenario(fixture(c.file)); }), c);
  }
}
