// Tests of the sacct -P reader: jobs and their steps, arrays, every state, TRES, drops, errors.
#include <doctest/doctest.h>

#include <string>

#include "util/error.h"
#include "workload/sacct_reader.h"
#include "workload/slurm_time.h"
#include "workload/trace_format.h"
#include "workload/trace_reader_util.h"
#include "../support/trace_reader_harness.h"

using namespace schedlab;
using namespace schedlab::workload;

namespace {
const testing::TraceReaderHarness harness("sacct");
}  // namespace

TEST_CASE("Workload.Sacct.jobs_steps_states_and_tres") {
  auto r = harness.read_all(harness.fixture("sacct.txt"));
  // 18 rows: 3 steps of job 101 passed over; 103 and 118 cancelled before they started (118 as
  // sacct writes it: Start and End at the cancel, no AllocTRES), 113 running, 114 pending and 117
  // requeued dropped; 9 jobs remain, in submit order.
  REQUIRE(r.jobs.size() == 9);
  const auto& j = r.jobs;
  CHECK(j[0].trace_number == 101);
  CHECK(j[0].submit == 0);
  CHECK(j[0].recorded_wait_s == 30);
  CHECK(j[0].duration == engine::from_seconds(3600));  // End - Start, not End - Submit
  CHECK((j[0].tasks == 1 && j[0].gpus_per_task == 2 && j[0].cpu_milli == 8000));
  CHECK((j[0].mem_given && j[0].mem_mib == 64 * 1024));
  CHECK(j[0].estimate == engine::from_seconds(7200));
  CHECK(j[0].status == TraceStatus::pass);
  CHECK(r.str(j[0].user) == "alice");
  CHECK(r.str(j[0].pool) == "ml");  // the account
  // 16 GPUs on 2 nodes (typed gres/gpu:a100 beside gres/gpu), 512000M of memory over 2 tasks.
  CHECK(j[1].trace_number == 102);
  CHECK(j[1].recorded_wait_s == 900);
  CHECK((j[1].tasks == 2 && j[1].gpus_per_task == 8 && j[1].cpu_milli == 16000));
  CHECK(j[1].mem_mib == 256000);
  CHECK(j[1].estimate == engine::from_seconds(86400));
  CHECK(j[1].status == TraceStatus::failed);
  CHECK(j[2].trace_number == 104);
  CHECK(j[2].status == TraceStatus::failed);  // TIMEOUT
  // A CPU-only job: one task per node; UNLIMITED gives no estimate.
  CHECK(j[3].trace_number == 105);
  CHECK((j[3].tasks == 1 && j[3].gpus_per_task == 0 && j[3].cpu_milli == 2000 && j[3].estimate == 0));
  // An array's tasks, one job each (their own JobIDRaw); Partition_Limit gives no estimate.
  CHECK((j[4].trace_number == 110 && j[5].trace_number == 111 && j[6].trace_number == 112));
  CHECK((j[4].recorded_wait_s == 60 && j[5].recorded_wait_s == 120 && j[6].recorded_wait_s == 180));
  CHECK(j[4].estimate == 0);
  CHECK(j[5].status == TraceStatus::killed);  // CANCELLED by 1001, after it started
  CHECK(j[6].status == TraceStatus::failed);  // OUT_OF_MEMORY
  // 3 GPUs on 2 nodes: shaped from the GPU count.
  CHECK((j[7].trace_number == 115 && j[7].tasks == 1 && j[7].gpus_per_task == 3));  // 3 GPUs on 2 nodes: shaped, a notice
  CHECK(j[7].status == TraceStatus::failed);  // NODE_FAIL
  CHECK(j[8].status == TraceStatus::killed);  // PREEMPTED
  for (std::size_t i = 0; i < j.size(); ++i) CHECK(j[i].id == i);
  const auto& drops = r.reader().drops();
  CHECK(drops.count("jobs cancelled before they started") == 2);
  CHECK(drops.count("jobs still running when sacct ran (no End)") == 1);
  CHECK(drops.count("jobs still pending when sacct ran") == 2);  // PENDING, REQUEUED
  CHECK(r.source->skipped_rows() == 5);
  auto gpu_only = harness.read_all(harness.fixture("sacct.txt"), false, {{"cpu_jobs", "drop"}});
  CHECK(gpu_only.jobs.size() == 8);
}

TEST_CASE("Workload.Sacct.bad_input_is_located") {
  struct Case {
    const char* file;
    const char* error;
  };
  const Case cases[] = {
      {"bad_header.txt", ":1: Start: required column is missing from the header"},
      {"start_before_submit.txt", ":2: Start: 2024-03-01T09:00:00 is before Submit 2024-03-01T10:00:00"},
      {"bad_tres.txt", ":2: AllocTRES: "},
  };
  for (const auto& c : cases) {
    CAPTURE(c.file);
    const std::string path = harness.fixture(c.file);
    CHECK(harness.error_of(path).rfind(path + c.error, 0) == 0);
  }
}

TEST_CASE("Workload.Sacct.detected_by_its_header") {
  CHECK(detect_sacct("JobIDRaw|User|Account", "x.txt"));
  CHECK(detect_sacct("JobID|JobName|State", "x.txt"));
  CHECK_FALSE(detect_sacct("JobIDRaw,User", "x.csv"));
  CHECK_FALSE(detect_sacct("job_id,user,vc,", "x.csv"));
}

TEST_CASE("Workload.SlurmTime.durations_as_slurm_prints_them") {
  struct Case {
    const char* text;
    std::optional<std::uint64_t> seconds;
  };
  const Case cases[] = {
      {"30", 1800},          {"10:30", 630},        {"01:00:00", 3600},       {"2-12", 216000},
      {"1-00:30", 88200},    {"1-00:00:01", 86401}, {"00:59:58.123", 3598},   {"UNLIMITED", std::nullopt},
      {"Partition_Limit", std::nullopt}, {"", std::nullopt}, {"1:2:3:4", std::nullopt}, {"-5", std::nullopt},
      {"1.5", std::nullopt},  {"10::00", std::nullopt},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    CHECK(slurm_duration_seconds(c.text) == c.seconds);
  }
}
