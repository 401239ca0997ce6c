// Tests of the PAI 2020 task-table reader: mapping, drops, bad rows, detection, and the published files.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/error.h"
#include "workload/pai2020_reader.h"
#include "workload/trace_format.h"
#include "workload/trace_reader_util.h"
#include "../support/trace_reader_harness.h"

using namespace schedlab;
using namespace schedlab::workload;

namespace {

const testing::TraceReaderHarness harness("pai2020");
using Read = testing::ReadTrace;

}  // namespace

TEST_CASE("Workload.Pai2020.maps_task_rows") {
  auto r = harness.read_all(harness.fixture("pai_task_table.csv"), false,
                    {{"job_table", harness.fixture("pai_job_table.csv")}, {"keep_names", "true"}});
  REQUIRE(r.jobs.size() == 5);
  const auto& j = r.jobs;
  // Sorted by start_time and re-based: j2 (500), j3 (700), j1 (1000), j5 (1300), j7 (1500).
  CHECK(r.str(j[0].trace_id) == "j2/tensorflow");
  CHECK(j[0].submit == 0);
  CHECK((j[0].tasks == 1 && j[0].gpus_per_task == 1 && j[0].gpu_milli == 500));
  CHECK(j[0].duration == engine::from_seconds(400));
  CHECK(j[0].gpu_request == kNoLabel);  // MISC: no model constraint
  CHECK(j[0].status == TraceStatus::failed);
  CHECK(r.str(j[0].user) == "userB");
  // plan_cpu is a percentage of a CPU, plan_mem GB (rounded up to a MiB): 600 -> 6 CPUs, 29.3 GB.
  CHECK((j[0].cpu_milli == 6000 && j[0].mem_mib == 30004 && j[0].cpu_given && j[0].mem_given));
  // A task without plan_gpu is a CPU task: 4 CPUs, 10 GB.
  CHECK(r.str(j[1].trace_id) == "j3/ps");
  CHECK((j[1].gpus_per_task == 0 && j[1].cpu_milli == 4000 && j[1].mem_mib == 10240));
  CHECK(r.str(j[2].trace_id) == "j1/worker");
  CHECK(j[2].submit == engine::from_seconds(500));
  CHECK((j[2].tasks == 2 && j[2].gpus_per_task == 1 && j[2].gpu_milli == 1000));  // inst_num "2.0"
  CHECK(r.str(j[2].gpu_request) == "V100");
  CHECK(r.str(j[2].user) == "userA");
  CHECK(j[2].status == TraceStatus::pass);
  CHECK(j[3].gpus_per_task == 2);  // plan_gpu 150: rounded up, with a notice
  CHECK(r.str(j[3].gpu_request) == "P100");
  CHECK(j[3].user == kNoLabel);
  CHECK(j[4].gpu_milli == 250);
  CHECK(j[4].duration == engine::from_seconds(10.5));
  CHECK(j[4].status == TraceStatus::killed);
  for (std::size_t i = 0; i < j.size(); ++i) CHECK(j[i].id == i);
  CHECK(r.source->skipped_rows() == 2);
  CHECK(r.reader().drops().count("tasks with no end_time") == 1);
  CHECK(r.reader().drops().count("tasks that never started (no start_time)") == 1);
  CHECK(r.reader().notices().total() == 1);
  CHECK(r.reader().out_of_order_rows() == 1);
  // cpu_jobs: drop leaves the CPU task out, as before CPUs were counted.
  auto gpu_only = harness.read_all(harness.fixture("pai_task_table.csv"), false, {{"cpu_jobs", "drop"}});
  CHECK(gpu_only.jobs.size() == 4);
  CHECK(gpu_only.reader().drops().count("CPU-only tasks (plan_gpu empty or 0; cpu_jobs: drop)") == 1);
}

TEST_CASE("Workload.Pai2020.row_line_is_the_default_id") {
  auto r = harness.read_all(harness.fixture("pai_task_table.csv"));
  REQUIRE(r.jobs.size() == 5);
  CHECK(r.jobs[0].trace_id == kNoLabel);
  CHECK(r.jobs[0].trace_number == 2);  // j2 is on line 2
  CHECK(r.jobs[2].trace_number == 1);
  CHECK(r.jobs[0].user == kNoLabel);   // no job_table given
}

TEST_CASE("Workload.Pai2020.fractional_over_one_gpu_can_be_an_error") {
  CHECK(harness.error_of(harness.fixture("pai_task_table.csv"), {{"fractional_gpu", "error"}})
            .find("pai_task_table.csv:5: plan_gpu: 150 is more than one GPU but not a whole number of GPUs") !=
        std::string::npos);
  CHECK(harness.error_of(harness.fixture("pai_task_table.csv"), {{"fractional_gpu", "round"}}).find("valid: ceil, error") !=
        std::string::npos);
}

TEST_CASE("Workload.Pai2020.bad_rows") {
  struct Case {
    const char* file;
    const char* error;
  };
  const Case cases[] = {
      {"float_int.csv", "2: inst_num: '2.5' is not a whole number"},
      {"truncated.csv", "3: expected 10 fields, found 4 (the last line has no newline: truncated file?)"},
      {"columns.csv", "2: expected 10 fields, found 9"},
      {"not_number.csv", "2: plan_gpu: 'lots' is not a number"},
      {"negative_gpus.csv", "2: plan_gpu: -100 is less than 0"},
      {"negative_cpu.csv", "2: plan_cpu: -600 is less than 0"},
      {"mem_not_number.csv", "2: plan_mem: 'much' is not a number"},
  };
  for (const auto& c : cases) {
    harness.check_bad_row(c.file, c.error);
  }
}

TEST_CASE("Workload.Pai2020.empty_and_header_only") {
  CHECK(harness.error_of(harness.fixture("empty.csv")) == harness.fixture("empty.csv") + ":1: empty trace: no rows");
  CHECK_THROWS_AS(harness.read_all(harness.fixture("empty.csv"), true), util::InputError);
  // A header and no job: an error, never a run of zero jobs.
  CHECK(harness.error_of(harness.fixture("header_only.csv")) ==
        harness.fixture("header_only.csv") + ": no job in this trace (no data rows)");
}

TEST_CASE("Workload.Pai2020.detected_by_file_name") {
  CHECK(harness.read_all(harness.fixture("pai_task_table.csv"), false, {}, "auto").jobs.size() == 5);
  CHECK(detect_pai2020_csv("a,b", "/data/pai_task_table.csv"));
  CHECK_FALSE(detect_pai2020_csv("a,b", "/data/pai_job_table.csv"));
}

TEST_CASE("Workload.Pai2020.submit_at_the_job_tables_start_gives_a_recorded_wait") {
  // pai_job_table's start_time is the job's submission; with `submit: job` a task is submitted
  // then and the gap to its own start is its recorded wait (task start - job start).
  auto r = harness.read_all(harness.fixture("pai_task_table.csv"), false,
                            {{"job_table", harness.fixture("pai_job_table_submit.csv")}, {"submit", "job"}});
  REQUIRE(r.jobs.size() == 4);  // j5's job has no start_time: dropped, counted
  const auto& j = r.jobs;
  // Sorted by the job's submission and re-based: j2 (490), j3 (720), j1 (990), j7 (1400).
  CHECK(j[0].trace_number == 2);
  CHECK(j[0].submit == 0);
  CHECK(j[0].recorded_wait_s == 10);                     // task 500 - job 490
  CHECK(j[0].duration == engine::from_seconds(400));     // the task's own run: 500 to 900
  CHECK(r.str(j[0].user) == "userB");
  CHECK(j[1].trace_number == 3);
  CHECK(j[1].submit == engine::from_seconds(230));
  CHECK(!j[1].has_recorded_wait());                     // started (700) before its job's submit (720)
  CHECK(j[2].trace_number == 1);
  CHECK(j[2].submit == engine::from_seconds(500));
  CHECK(j[2].recorded_wait_s == 10);
  CHECK(j[3].trace_number == 7);
  CHECK(j[3].recorded_wait_s == 100);
  CHECK(j[3].duration == engine::from_seconds(10.5));
  CHECK(r.reader().drops().count("tasks whose job has no start_time in job_table (submit: job)") == 1);
  CHECK(r.reader().notices().count(kStartBeforeSubmit) == 1);
  // The default stays: each task submitted at its own start, no recorded wait.
  auto by_task = harness.read_all(harness.fixture("pai_task_table.csv"), false,
                                  {{"job_table", harness.fixture("pai_job_table_submit.csv")}});
  REQUIRE(by_task.jobs.size() == 5);
  for (const auto& t : by_task.jobs) CHECK(!t.has_recorded_wait());
}

TEST_CASE("Workload.Pai2020.submit_job_refusals") {
  CHECK(harness.error_of(harness.fixture("pai_task_table.csv"), {{"submit", "job"}})
            .find("submit (pai2020): job needs the job_table argument") != std::string::npos);
  CHECK(harness.error_of(harness.fixture("pai_task_table.csv"), {{"submit", "arrival"}}).find("valid: task, job") !=
        std::string::npos);
  // The job table's times are read only for `submit: job`, and then checked with its file and line.
  const std::string bad = harness.fixture("pai_job_table_bad_time.csv");
  CHECK(harness.error_of(harness.fixture("pai_task_table.csv"), {{"job_table", bad}, {"submit", "job"}})
            .find("pai_job_table_bad_time.csv:2: start_time: 'soon' is not a number") != std::string::npos);
  CHECK(harness.read_all(harness.fixture("pai_task_table.csv"), false, {{"job_table", bad}}).jobs.size() == 5);
  CHECK(harness.error_of(harness.fixture("pai_task_table.csv"), {{"job_table", "/nowhere/pai_job_table.csv"}})
            .find("job_table (pai2020): /nowhere/pai_job_table.csv: no such file") != std::string::npos);
}
