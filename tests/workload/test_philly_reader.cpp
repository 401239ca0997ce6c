// Tests of the Philly cluster_job_log JSON reader: mapping, drops, bad rows, detection, and the published files.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/error.h"
#include "workload/philly_reader.h"
#include "workload/trace_format.h"
#include "workload/trace_reader_util.h"
#include "../support/trace_reader_harness.h"

using namespace schedlab;
using namespace schedlab::workload;

namespace {

const testing::TraceReaderHarness harness("philly");
using Read = testing::ReadTrace;

}  // namespace

TEST_CASE("Workload.Philly.MapsJobsAndAttempts") {
  for (const char* file : {"cluster_job_log.json", "cluster_job_log.jsonl"}) {
    CAPTURE(file);
    auto r = harness.read_all(harness.fixture(file));
    REQUIRE(r.jobs.size() == 4);
    const auto& j = r.jobs;
    CHECK(r.str(j[0].trace_id) == "application_twohosts");  // submitted first
    CHECK(j[0].submit == 0);
    CHECK((j[0].tasks == 2 && j[0].gpus_per_task == 4));
    CHECK(j[0].duration == engine::from_seconds(600));
    CHECK(j[0].status == TraceStatus::failed);
    CHECK(r.str(j[1].trace_id) == "application_1506638472019_14199");
    CHECK(j[1].submit == engine::from_seconds(2529));  // 01:11:39 - 00:29:30
    CHECK((j[1].tasks == 1 && j[1].gpus_per_task == 8));
    // First attempt's start to the last attempt's end: 10-07 01:12:09 .. 10-09 06:53:12.
    CHECK(j[1].duration == engine::from_seconds(193263));
    CHECK(j[1].status == TraceStatus::pass);
    CHECK(r.str(j[1].user) == "ce2f4c");
    CHECK(r.str(j[1].pool) == "ee9e8c");
    CHECK(r.str(j[2].trace_id) == "application_uneven");
    CHECK((j[2].tasks == 3 && j[2].gpus_per_task == 4));  // hosts of 8 and 4 GPUs: 12 as 3 x 4
    CHECK(r.str(j[3].trace_id) == "application_nostart");
    CHECK(j[3].duration == engine::from_seconds(600));  // the first attempt has no start_time
    CHECK(j[3].status == TraceStatus::killed);
    for (std::size_t i = 0; i < j.size(); ++i) CHECK(j[i].id == i);
    CHECK(r.source->skipped_rows() == 2);
    CHECK(r.reader().drops().count("jobs with no attempts") == 1);
    CHECK(r.reader().drops().count("jobs still running at the snapshot (last end_time null)") == 1);
    CHECK(r.reader().out_of_order_rows() == 1);
    CHECK(r.reader().notices().total() == 1);
  }
}

TEST_CASE("Workload.Philly.BadObjects") {
  std::string e = harness.error_of(harness.fixture("bad_json.json"));
  CHECK(e.rfind(harness.fixture("bad_json.json") + ":3: invalid JSON in this job object", 0) == 0);
  auto r = harness.read_all(harness.fixture("bad_json.json"), true);
  CHECK(r.jobs.size() == 2);
  CHECK(r.reader().bad_rows() == 1);

  CHECK(harness.error_of(harness.fixture("bad_time.json")).find("submitted_time: 'yesterday' is not a date-time") != std::string::npos);
  CHECK(harness.read_all(harness.fixture("bad_time.json"), true).jobs.size() == 2);

  CHECK(harness.error_of(harness.fixture("truncated.json")).find("not closed (truncated file?)") != std::string::npos);
  auto t = harness.read_all(harness.fixture("truncated.json"), true);
  CHECK(t.jobs.size() == 1);
  CHECK(t.reader().bad_rows() == 1);
}

TEST_CASE("Workload.Philly.Empty") {
  CHECK(harness.error_of(harness.fixture("empty.json")) == harness.fixture("empty.json") + ":1: empty trace: no JSON");
  // An empty list: no job, an error (never a run of zero jobs).
  CHECK(harness.error_of(harness.fixture("empty_list.json")) ==
        harness.fixture("empty_list.json") + ": no job in this trace (no data rows)");
}

TEST_CASE("Workload.Philly.Detected") {
  CHECK(harness.read_all(harness.fixture("cluster_job_log.json"), false, {}, "auto").jobs.size() == 4);
  CHECK(harness.read_all(harness.fixture("cluster_job_log.jsonl"), false, {}, "auto").jobs.size() == 4);
}
