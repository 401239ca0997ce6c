// Tests of the Acme reader (trace_seren.csv, trace_kalos.csv, NSDI'24): mapping, job types,
// each job state, time zones, drops, and detection. Fixtures written from the published schema.
#include <doctest/doctest.h>

#include <string>

#include "workload/acme_reader.h"
#include "workload/trace_format.h"
#include "workload/trace_reader_util.h"
#include "workload/trace_stats.h"
#include "../support/trace_reader_harness.h"

using namespace schedlab;
using namespace schedlab::workload;

namespace {
const testing::TraceReaderHarness harness("acme");
}  // namespace

TEST_CASE("Workload.Acme.seren_maps_columns_states_and_types") {
  auto r = harness.read_all(harness.fixture("seren.csv"));
  // 7 rows: one never started (no start_time) is dropped; the CPU job (gpu_num 0) runs.
  REQUIRE(r.jobs.size() == 6);
  const auto& j = r.jobs;
  CHECK(j[0].trace_number == 5778432);
  CHECK(j[0].submit == 0);
  CHECK(j[0].duration == engine::from_seconds(117));
  CHECK((j[0].tasks == 1 && j[0].gpus_per_task == 8));
  CHECK(r.str(j[0].job_type) == "Other");
  CHECK(j[0].status == TraceStatus::failed);
  CHECK(r.str(j[0].user) == "u5907");
  CHECK(j[1].submit == engine::from_seconds(336));  // +08:00 both: 00:23:58 - 00:18:22
  CHECK(j[1].status == TraceStatus::pass);
  CHECK(r.str(j[1].job_type) == "Pretrain");
  CHECK((j[2].tasks == 4 && j[2].gpus_per_task == 8));  // 32 GPUs on 4 nodes
  CHECK(j[2].status == TraceStatus::killed);             // CANCELLED
  CHECK(j[2].cpu_milli == 128000);                        // 512 CPUs over 4 tasks
  CHECK(j[3].status == TraceStatus::failed);              // TIMEOUT
  CHECK(r.str(j[3].job_type) == "SFT");
  CHECK(j[4].status == TraceStatus::failed);              // NODE_FAIL
  CHECK(r.str(j[4].job_type) == "Evaluation");
  CHECK((j[5].gpus_per_task == 0 && j[5].cpu_milli == 8000));  // Debug, no GPU
  CHECK(r.reader().drops().count("jobs that never started (no start_time)") == 1);
}

TEST_CASE("Workload.Acme.kalos_memory_per_pod_and_utc_times") {
  auto r = harness.read_all(harness.fixture("kalos.csv"));
  REQUIRE(r.jobs.size() == 3);
  CHECK(r.str(r.jobs[0].trace_id) == "dlctk696s0jbvitv");
  CHECK((r.jobs[0].tasks == 8 && r.jobs[0].gpus_per_task == 8));
  CHECK((r.jobs[0].mem_given && r.jobs[0].mem_mib == 1000 * 1024));  // a pod per node
  CHECK(r.jobs[0].duration == engine::from_seconds(8));
  CHECK(r.jobs[2].submit == engine::from_seconds(3542));  // 12:00:00 - 11:00:58
  CHECK((r.jobs[2].tasks == 2 && r.jobs[2].mem_mib == 500 * 1024));
}

TEST_CASE("Workload.Acme.detected_and_summarised_by_type") {
  CHECK(detect_acme_csv("job_id,user,node_num,gpu_num,cpu_num,type,state", "x.csv"));
  CHECK_FALSE(detect_acme_csv("job_id,user,vc,gpu_num,cpu_num", "x.csv"));  // Helios
  TraceOptions options;
  auto source = open_trace(harness.fixture("seren.csv"), options);  // auto-detected
  auto s = compute_trace_stats(*source);
  CHECK(s.jobs == 6);
  REQUIRE(s.by_job_type.count("Pretrain") == 1);
  CHECK(s.by_job_type["Pretrain"].first == 2);
  // 8 GPUs x 2693 s + 32 GPUs x 7200 s, in hours.
  CHECK(s.by_job_type["Pretrain"].second == doctest::Approx((8.0 * 2693 + 32.0 * 7200) / 3600));
  CHECK(s.by_job_type["Debug"].first == 1);
}
