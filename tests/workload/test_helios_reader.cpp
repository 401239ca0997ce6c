// Tests of the Helios cluster_log reader: mapping, drops, bad rows, detection, and the published files.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/error.h"
#include "workload/helios_reader.h"
#include "workload/trace_format.h"
#include "workload/trace_reader_util.h"
#include "../support/trace_reader_harness.h"

using namespace schedlab;
using namespace schedlab::workload;

namespace {

const testing::TraceReaderHarness harness("helios");
using Read = testing::ReadTrace;

}  // namespace

TEST_CASE("Workload.Helios.maps_columns") {
  auto r = harness.read_all(harness.fixture("cluster_log.csv"));
  REQUIRE(r.jobs.size() == 5);
  const auto& j = r.jobs;
  CHECK(j[0].trace_number == 1425510);  // submitted first, listed fifth
  CHECK(j[0].submit == 0);
  CHECK((j[0].tasks == 2 && j[0].gpus_per_task == 6));
  CHECK(j[0].duration == engine::from_seconds(3600));
  CHECK(j[0].status == TraceStatus::failed);  // TIMEOUT
  // cpu_num is the job's CPUs in all: 48 over 2 tasks. No memory column: not given.
  CHECK((j[0].cpu_milli == 24000 && j[0].cpu_given && !j[0].mem_given));
  CHECK(j[1].trace_number == 1425511);
  CHECK(j[1].submit == engine::from_seconds(60));
  CHECK(j[1].duration == engine::from_seconds(36848));
  CHECK((j[1].tasks == 1 && j[1].gpus_per_task == 1));
  CHECK(j[1].status == TraceStatus::pass);
  CHECK(r.str(j[1].user) == "uXBbc");
  CHECK(r.str(j[1].pool) == "vcJkd");
  CHECK((j[2].tasks == 1 && j[2].gpus_per_task == 4 && j[2].cpu_milli == 16000));
  CHECK(j[2].duration == engine::from_seconds(249));
  CHECK((j[3].tasks == 2 && j[3].gpus_per_task == 8 && j[3].cpu_milli == 32000));
  CHECK(j[3].duration == engine::from_seconds(675173));  // end - start, not end - submit
  CHECK(j[3].status == TraceStatus::killed);
  // gpu_num 0 with CPUs: a CPU job of one task per node.
  CHECK(j[4].trace_number == 1425514);
  CHECK((j[4].tasks == 1 && j[4].gpus_per_task == 0 && j[4].cpu_milli == 4000));
  CHECK(j[4].duration == engine::from_seconds(510));
  for (std::size_t i = 0; i < j.size(); ++i) CHECK(j[i].id == i);
  CHECK(r.source->skipped_rows() == 1);
  CHECK(r.reader().drops().count("jobs that never started (no start_time)") == 1);
  CHECK(r.reader().out_of_order_rows() == 1);
  auto gpu_only = harness.read_all(harness.fixture("cluster_log.csv"), false, {{"cpu_jobs", "drop"}});
  CHECK(gpu_only.jobs.size() == 4);
  CHECK(gpu_only.reader().drops().count("CPU-only jobs (gpu_num 0; cpu_jobs: drop)") == 1);
}

TEST_CASE("Workload.Helios.epoch_seconds_and_uneven_nodes") {
  auto r = harness.read_all(harness.fixture("epoch.csv"));
  REQUIRE(r.jobs.size() == 2);
  CHECK(r.jobs[0].submit == 0);
  CHECK(r.jobs[1].submit == engine::from_seconds(10));
  CHECK((r.jobs[0].tasks == 1 && r.jobs[0].gpus_per_task == 8));
  CHECK((r.jobs[1].tasks == 1 && r.jobs[1].gpus_per_task == 3));  // 3 GPUs on 2 nodes: shaped from gpu_num
  CHECK(r.reader().notices().total() == 1);
}

TEST_CASE("Workload.Helios.bad_time") {
  CHECK(harness.error_of(harness.fixture("bad_time.csv")) ==
        harness.fixture("bad_time.csv") +
            ":2: submit_time: '2020-13-09 18:41:01' is neither a date-time (YYYY-MM-DD HH:MM:SS) nor seconds");
}

TEST_CASE("Workload.Helios.bad_rows") {
  struct Case {
    const char* file;
    const char* error;
  };
  const Case cases[] = {
      {"float_int.csv", "3: gpu_num: '1.5' is not a whole number"},
      {"truncated.csv", "4: expected 12 fields, found 7 (the last line has no newline: truncated file?)"},
      {"columns.csv", "3: expected 12 fields, found 11"},
      {"not_number.csv", "3: gpu_num: 'one' is not a number"},
      {"negative_gpus.csv", "3: gpu_num: -4 is less than 0"},
      {"negative_cpus.csv", "3: cpu_num: -4 is less than 0"},
  };
  for (const auto& c : cases) {
    harness.check_bad_row(c.file, c.error);
  }
}

TEST_CASE("Workload.Helios.empty_and_header_only") {
  CHECK(harness.error_of(harness.fixture("empty.csv")) == harness.fixture("empty.csv") + ":1: empty trace: no header row");
  // A header and no job: an error, never a run of zero jobs.
  CHECK(harness.error_of(harness.fixture("header_only.csv")) ==
        harness.fixture("header_only.csv") + ": no job in this trace (no data rows)");
}

TEST_CASE("Workload.Helios.detected") {
  CHECK(harness.read_all(harness.fixture("cluster_log.csv"), false, {}, "auto").jobs.size() == 5);
}
