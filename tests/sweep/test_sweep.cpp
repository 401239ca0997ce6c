// Sweeps (sweep/): a grid expanded to cells in a fixed order, mistakes at their line in the
// sweep file, and collect's tables on a hand-made sweep folder with known numbers.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "support/scratch_dir.h"
#include "sweep/slurm.h"
#include "sweep/sweep_collect.h"
#include "sweep/sweep_folder.h"
#include "sweep/sweep_spec.h"
#include "sweep/sweep_stats.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::sweep;

namespace {

const std::string kFixtures = std::string(SCHEDLAB_SOURCE_DIR) + "/tests/fixtures/sweeps/";

// A finished cell as a run leaves it: the results marker and a summary.json.
void fake_cell(const SweepFolder& folder, std::size_t i, double jct, double util) {
  const auto dir = folder.cell_dir(i);
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/.schedlab-results") << "schedlab test results folder\n";
  std::ofstream(dir + "/summary.json") << "{\"scenario\": \"x\", \"jct_mean_s\": " << jct
                                       << ", \"gpu_utilization\": " << util << ", \"pools\": {\"a\": 1}}\n";
}

SweepSpec two_points_three_seeds() {
  SweepSpec spec;
  spec.file = "/nowhere/sweep.yaml";
  spec.scenario = "/nowhere/scenario.yaml";
  spec.grid = {{"scheduler.placement", {"best-fit", "rack-pack"}, 3}};
  spec.seeds = {1, 2, 3};
  return spec;
}

}  // namespace

TEST_CASE("Sweep.Expand.grid_keys_in_file_order_the_last_fastest_seeds_innermost") {
  const auto spec = load_sweep(kFixtures + "small.yaml");
  REQUIRE(cell_count(spec) == 12);
  REQUIRE(spec.grid.size() == 2);
  CHECK(spec.grid[0].key == "scheduler.placement");
  CHECK(spec.grid[1].values == std::vector<std::string>{"0.5", "1.0"});
  auto c = cell_at(spec, 0);
  CHECK(c.values == std::vector<std::string>{"best-fit", "0.5"});
  CHECK(c.seed == 1);
  c = cell_at(spec, 1);
  CHECK(c.values == std::vector<std::string>{"best-fit", "0.5"});
  CHECK(c.seed == 2);
  c = cell_at(spec, 3);
  CHECK(c.values == std::vector<std::string>{"best-fit", "1.0"});
  CHECK(c.seed == 1);
  c = cell_at(spec, 11);
  CHECK(c.values == std::vector<std::string>{"rack-pack", "1.0"});
  CHECK(c.seed == 3);
  CHECK(cell_sets(spec, c) == std::vector<std::string>{"scheduler.placement=rack-pack", "workload.arrival_scale=1.0"});
  CHECK(cell_name(11) == "cell-000011");
}

TEST_CASE("Sweep.Expand.the_manifest_reads_back_as_the_same_sweep") {
  const auto spec = load_sweep(kFixtures + "small.yaml");
  const auto back = sweep_from_json(to_json(spec), "sweep.json");
  CHECK(to_json(back) == to_json(spec));
  CHECK(cell_count(back) == 12);
}

TEST_CASE("Sweep.Expand.a_value_the_scenario_refuses_is_reported_at_its_line_in_the_sweep_file") {
  try {
    load_sweep(kFixtures + "bad_value.yaml");
    FAIL("no error");
  } catch (const util::InputError& e) {
    CHECK(e.line() == 5);
    CHECK(e.field() == "grid.scheduler.placement");
    CHECK(std::string(e.what()).find("rackpack") != std::string::npos);
  }
  CHECK_THROWS_WITH_AS(load_sweep(kFixtures + "not_a_list.yaml"), doctest::Contains("expected a list"),
                       util::InputError);
}

TEST_CASE("Sweep.Stats.mean_sd_and_the_student_t_confidence_interval") {
  // 10, 12, 14: mean 12, sd 2, 95% CI 12 +/- 4.303 x 2 / sqrt(3) = 12 +/- 4.9687.
  const auto s = seed_stats({10, 12, 14});
  CHECK(s.n == 3);
  CHECK(s.mean == doctest::Approx(12));
  CHECK(s.sd == doctest::Approx(2));
  CHECK(s.ci95 == doctest::Approx(4.303 * 2 / std::sqrt(3.0)));
  CHECK(seed_stats({7}).ci95 == 0);
  CHECK(t_quantile_95(1) == doctest::Approx(12.706));
  CHECK(t_quantile_95(60) == doctest::Approx(2.000).epsilon(1e-3));
  CHECK(t_quantile_95(100000) == doctest::Approx(1.960).epsilon(1e-3));
}

TEST_CASE("Sweep.Collect.tidy_rows_per_cell_and_metric_and_a_summary_per_grid_point") {
  testing::ScratchDir tmp("sweep-collect");
  const auto spec = two_points_three_seeds();
  const auto folder = prepare_folder(spec, (tmp.path / "s").string());
  // best-fit: JCT 100, 110, 120 s; rack-pack: 200, 200 (its third seed has no results).
  fake_cell(folder, 0, 100, 0.5);
  fake_cell(folder, 1, 110, 0.6);
  fake_cell(folder, 2, 120, 0.7);
  fake_cell(folder, 3, 200, 0.8);
  fake_cell(folder, 4, 200, 0.8);
  const auto c = collect(spec, folder);
  CHECK(c.read == 5);
  CHECK(c.missing == std::vector<std::size_t>{5});
  const auto tidy = testing::file_text(tmp.path / "s/sweep.csv");
  CHECK(tidy.rfind("cell,seed,scheduler.placement,metric,value\n"
                   "cell-000000,1,best-fit,jct_mean_s,100\n"
                   "cell-000000,1,best-fit,gpu_utilization,0.5\n"
                   "cell-000001,2,best-fit,jct_mean_s,110\n",
                   0) == 0);
  CHECK(tidy.find("pools") == std::string::npos);  // nested sections are not figures
  const auto summary = testing::file_text(tmp.path / "s/sweep-summary.csv");
  // best-fit's JCT: mean 110, sd 10, CI 110 +/- 4.303 x 10 / sqrt(3) = 110 +/- 24.8434.
  const double half = 4.303 * 10 / std::sqrt(3.0);
  const std::string first = summary.substr(0, summary.find('\n', summary.find('\n') + 1) + 1);
  CHECK(first == "scheduler.placement,metric,n,mean,sd,ci95_low,ci95_high\n" +
                     fmt::format("best-fit,jct_mean_s,3,110,10,{},{}\n", 110 - half, 110 + half));
  // rack-pack from two seeds: sd 0, so the interval is a point.
  CHECK(summary.find("rack-pack,jct_mean_s,2,200,0,200,200\n") != std::string::npos);
  REQUIRE(c.summary.size() == 4);
  CHECK(c.summary[2].values == std::vector<std::string>{"rack-pack"});
  CHECK(format_collected(spec, c).find("rack-pack") != std::string::npos);
}

TEST_CASE("Sweep.Folder.a_folder_holding_another_sweep_or_other_files_is_refused") {
  testing::ScratchDir tmp("sweep-folder");
  auto spec = two_points_three_seeds();
  const auto dir = (tmp.path / "s").string();
  prepare_folder(spec, dir);
  CHECK_NOTHROW(prepare_folder(spec, dir));  // the same sweep: resumed
  spec.seeds = {1, 2};
  CHECK_THROWS_WITH_AS(prepare_folder(spec, dir), doctest::Contains("holds another sweep"), util::InputError);
  std::filesystem::create_directories(tmp.path / "other");
  std::ofstream(tmp.path / "other/notes.txt") << "mine\n";
  CHECK_THROWS_WITH_AS(prepare_folder(spec, (tmp.path / "other").string()), doctest::Contains("not a sweep folder"),
                       util::InputError);
  CHECK(testing::file_text(tmp.path / "other/notes.txt") == "mine\n");
}

TEST_CASE("Sweep.Slurm.plan_deals_cells_to_tasks_and_tasks_to_arrays") {
  struct Case {
    std::size_t cells, per_task, max_array;
    std::size_t tasks;
    std::vector<std::pair<std::size_t, std::size_t>> arrays;  // (first task, tasks)
  };
  const std::vector<Case> cases = {
      {12, 1, 1001, 12, {{0, 12}}},
      {12, 4, 1001, 3, {{0, 3}}},
      {12, 5, 1001, 3, {{0, 3}}},  // 5 + 5 + 2
      {12, 1, 5, 12, {{0, 5}, {5, 5}, {10, 2}}},
      {1200, 1, 1001, 1200, {{0, 1001}, {1001, 199}}},
      {1200, 2, 1001, 600, {{0, 600}}},
      {1, 0, 1001, 1, {{0, 1}}},  // 0 per task is taken as 1
      {0, 3, 1001, 0, {}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.cells);
    CAPTURE(c.per_task);
    CAPTURE(c.max_array);
    std::vector<std::size_t> cells(c.cells);
    for (std::size_t i = 0; i < c.cells; ++i) cells[i] = 2 * i;  // not contiguous: the plan keeps them as given
    const auto p = plan_slurm(cells, c.per_task, c.max_array);
    CHECK(p.cells == cells);
    CHECK(p.tasks == c.tasks);
    std::vector<std::pair<std::size_t, std::size_t>> arrays;
    for (const auto& a : p.arrays) arrays.emplace_back(a.first_task, a.tasks);
    CHECK(arrays == c.arrays);
  }
}

TEST_CASE("Sweep.Slurm.time_limits_scale_with_the_cells_of_a_task") {
  struct Case {
    const char* per_cell;
    std::size_t n;
    const char* task;
  };
  const std::vector<Case> cases = {
      {"30", 1, "0-00:30:00"},         {"30", 4, "0-02:00:00"},       {"10:30", 2, "0-00:21:00"},
      {"01:00:00", 30, "1-06:00:00"},  {"2-12", 1, "2-12:00:00"},     {"1-00:00:01", 2, "2-00:00:02"},
      {"0-00:00:05", 3, "0-00:00:15"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.per_cell);
    CHECK(scale_slurm_time(c.per_cell, c.n) == c.task);
  }
  for (const char* bad : {"", "1:2:3:4", "x", "-5", "0", "1.5", "10::00", "99999999"})
    CHECK_THROWS_WITH_AS(scale_slurm_time(bad, 1), doctest::Contains("--time"), util::InputError);
}

TEST_CASE("Sweep.Slurm.sbatch_args_pass_through_or_are_refused") {
  for (const char* ok : {"--account=ml", "--qos=high", "--mem=8G", "--constraint=a100&ib", "-A", "--exclusive"})
    CHECK_NOTHROW(check_sbatch_arg(ok));
  const std::vector<std::pair<const char*, const char*>> refused = {
      {"account=ml", "not an sbatch option"},
      {"--comment=two words", "whitespace"},
      {"--array=0-3", "schedlab sets --array itself"},
      {"-o/tmp/x", "schedlab sets -o itself"},
      {"--output=x", "schedlab sets --output itself"},
      {"--dependency=afterok:1", "schedlab sets --dependency itself"},
  };
  for (const auto& [arg, why] : refused) {
    CAPTURE(arg);
    CHECK_THROWS_WITH_AS(check_sbatch_arg(arg), doctest::Contains(why), util::InputError);
  }
}

TEST_CASE("Sweep.Slurm.the_script_runs_its_task_s_cells") {
  CHECK(shell_quote("/tmp/it's here") == "'/tmp/it'\\''s here'");
  SlurmOptions o;
  o.max_running = 2;
  o.partition = "gpu";
  o.time = "10";
  o.sbatch_args = {"--account=ml", "--mem=4G"};
  const auto plan = plan_slurm({0, 1, 2, 5, 7}, 2, 2);  // tasks {0,1} {2,5} {7}: arrays of 2 and 1
  const auto script = sbatch_script(o, "/opt/schedlab", "/data/study", plan);
  CHECK(script.find("#SBATCH --array=0-1%2\n") != std::string::npos);
  CHECK(script.find("#SBATCH --partition=gpu\n") != std::string::npos);
  CHECK(script.find("#SBATCH --time=0-00:20:00\n") != std::string::npos);  // 2 cells of 10 minutes
  CHECK(script.find("#SBATCH --account=ml\n#SBATCH --mem=4G\n") != std::string::npos);
  CHECK(script.find("cells=(\n  0 1 2 5 7\n)\nper=2\n") != std::string::npos);
  CHECK(script.find("'/opt/schedlab' sweep run-cell '/data/study' \"${cells[i]}\" || rc=1\n") != std::string::npos);

  // The script itself, run for each task of each array: which cells each would run.
  testing::ScratchDir tmp("slurm-script");
  const std::string fake = (tmp.path / "fake-schedlab").string();
  std::ofstream(fake) << "#!/bin/bash\necho \"$4\" >>" << (tmp.path / "ran").string() << "\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  const std::string path = (tmp.path / "sweep.sbatch").string();
  std::ofstream(path) << sbatch_script(o, fake, "/data/study", plan);
  auto run_task = [&](std::size_t array_index, std::size_t offset) {
    std::filesystem::remove(tmp.path / "ran");
    const std::string cmd = fmt::format("SLURM_ARRAY_TASK_ID={} SCHEDLAB_TASK_OFFSET={} bash {}", array_index, offset, path);
    REQUIRE(std::system(cmd.c_str()) == 0);
    return testing::file_text(tmp.path / "ran");
  };
  CHECK(run_task(0, 0) == "0\n1\n");
  CHECK(run_task(1, 0) == "2\n5\n");
  CHECK(run_task(0, 2) == "7\n");  // the second array job starts at task 2
}
