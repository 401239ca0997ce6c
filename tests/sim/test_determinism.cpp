// The same scenario and seed give byte-identical results files, run after run; a results
// folder appears only when a run completes.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "config/scenario.h"
#include "run/scenario_run.h"
#include "util/error.h"

using namespace schedlab;
namespace fs = std::filesystem;

namespace {
std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh temporary folder, removed at the end of the test.
struct ScratchDir {
  fs::path path;
  explicit ScratchDir(const std::string& tag)
      : path(fs::temp_directory_path() / ("schedlab-test-" + tag + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~ScratchDir() { fs::remove_all(path); }
};

const char* const kFiles[] = {"jobs.csv", "timeline.csv", "summary.json", "run.yaml"};
}  // namespace

TEST_CASE("Sim.Determinism.same_scenario_twice_gives_identical_files") {
  const std::string root = SCHEDLAB_SOURCE_DIR;
  struct Case {
    std::string scenario;
    std::vector<std::string> sets;
  };
  const Case cases[] = {
      {root + "/scenarios/quickstart.yaml", {}},
      {root + "/scenarios/hetero-compare.yaml", {"scheduler.admission=incremental", "scheduler.backfill=easy"}},
      {root + "/tests/fixtures/scenarios/generated.yaml", {}},
  };
  ScratchDir tmp("determinism");
  int n = 0;
  for (const auto& c : cases) {
    CAPTURE(c.scenario);
    auto sc = config::load_scenario(c.scenario, c.sets);
    const fs::path a = tmp.path / fmt::format("a{}", n), b = tmp.path / fmt::format("b{}", n);
    ++n;
    util::Notices notices;
    auto first = run::run_scenario(sc, notices, a.string());
    auto second = run::run_scenario(config::load_scenario(c.scenario, c.sets), notices, b.string());
    CHECK(first.summary.finished > 0);
    CHECK(first.stats.events == second.stats.events);
    for (const char* f : kFiles) {
      CAPTURE(f);
      REQUIRE(fs::exists(a / f));
      REQUIRE(fs::exists(b / f));
      std::string x = read_file(a / f);
      CHECK_FALSE(x.empty());
      CHECK(x == read_file(b / f));
    }
    // Nothing but the four files and the results marker, and no staging folder left beside them.
    CHECK(std::distance(fs::directory_iterator(a), fs::directory_iterator()) == 5);
    CHECK(read_file(a / ".schedlab-results") == read_file(b / ".schedlab-results"));
  }
  CHECK(std::distance(fs::directory_iterator(tmp.path), fs::directory_iterator()) == 2 * n);
}

TEST_CASE("Sim.Determinism.another_seed_gives_another_generated_run") {
  const std::string scenario = std::string(SCHEDLAB_SOURCE_DIR) + "/tests/fixtures/scenarios/generated.yaml";
  util::Notices notices;
  auto one = run::run_scenario(config::load_scenario(scenario, {}, 1), notices, "");
  auto two = run::run_scenario(config::load_scenario(scenario, {}, 2), notices, "");
  CHECK(one.summary.jobs == two.summary.jobs);
  CHECK(one.summary.jct_mean_s != two.summary.jct_mean_s);
}

TEST_CASE("Sim.ScenarioRun.results_record_the_resolved_scenario") {
  const std::string scenario = std::string(SCHEDLAB_SOURCE_DIR) + "/tests/fixtures/scenarios/tiny.yaml";
  ScratchDir tmp("resolved");
  auto out = tmp.path / "run";
  util::Notices notices;
  auto outcome = run::run_scenario(
      config::load_scenario(scenario, {"scheduler.placement=first-fit", "scheduler.filters=[gpu-model]"}), notices,
      out.string());
  // The small trace: 4 jobs on 16 GPUs. Job 0 (4 GPUs, any model) takes V100 host h0; job 1
  // asks for 2 x 4 A100 and gets the A100 host h2 at once, 0.5 .. 50.75.
  CHECK(outcome.summary.jobs == 4);
  CHECK(outcome.summary.finished == 3);  // job 2 is a service instance: never counted as finished
  CHECK(outcome.summary.total_gpus == 16);
  auto run = YAML::LoadFile((out / "run.yaml").string());
  CHECK(run["schedlab_version"].as<std::string>() == SCHEDLAB_VERSION);
  CHECK(run["resolved"]["scheduler"]["placement"].as<std::string>() == "first-fit");
  CHECK(run["resolved"]["seed"].as<int>() == 5);
  CHECK(run["scenario_file"].as<std::string>() == scenario);
  std::string jobs = read_file(out / "jobs.csv");
  CHECK(jobs.starts_with("id,trace_id,user,submit_s,start_s,end_s,first_wait_s,queueing_delay_s,run_s,jct_s,tasks,"
                         "gpus_per_task,gpu_milli,gpus,hosts,racks,gpu_model,placement,state,drop_reason,preemptions,"
                         "failures,restarts,attained_gpu_s,lost_gpu_s,cpus_per_task,mem_gb_per_task,pool,kind\n"));
  // No CPU or memory column in the trace: the defaults, 4 CPUs and 16 GB per GPU of a task; then
  // the trace's pool column (the scenario has no pools) and the job's kind.
  CHECK(jobs.find("1,1,bob,0.500000,0.500000,50.750000,0.000000,0.000000,50.250000,50.250000,2,4,1000,8,1,1,A100,"
                  "h2:8,finished,,0,0,0,402.000000,0.000000,16,64,research,batch\n") != std::string::npos);
}

TEST_CASE("Sim.ScenarioRun.a_failed_run_leaves_no_results_folder") {
  // A trace row naming a GPU model the catalog lacks fails mid-run.
  ScratchDir tmp("failed");
  const fs::path trace = tmp.path / "bad_model.csv";
  std::ofstream(trace) << "id,submit_s,duration_s,tasks,gpus_per_task,gpu_model\n0,0,10,1,1,\n1,5,10,1,1,H10O\n";
  const std::string scenario = std::string(SCHEDLAB_SOURCE_DIR) + "/tests/fixtures/scenarios/minimal.yaml";
  auto sc = config::load_scenario(scenario, {"workload.trace=" + trace.string()});
  const fs::path out = tmp.path / "out";
  try {
    util::Notices notices;
    run::run_scenario(sc, notices, out.string());
    FAIL("expected an InputError");
  } catch (const util::InputError& e) {
    CHECK(e.file() == trace.string());
    CHECK(e.line() == 3);
    CHECK(e.field() == "gpu_model");
    CHECK(std::string(e.what()).find("unknown GPU model 'H10O'; did you mean 'H100'?") != std::string::npos);
  }
  CHECK_FALSE(fs::exists(out));
  // Only the trace is left: no staging folder either.
  CHECK(std::distance(fs::directory_iterator(tmp.path), fs::directory_iterator()) == 1);
}
