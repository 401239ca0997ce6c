// Tests of the SWF reader: mapping, drops, bad rows, detection, and the published files.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/error.h"
#include "workload/swf_reader.h"
#include "workload/trace_format.h"
#include "workload/trace_reader_util.h"
#include "../support/trace_reader_harness.h"

using namespace schedlab;
using namespace schedlab::workload;

namespace {

const testing::TraceReaderHarness harness("swf");
using Read = testing::ReadTrace;

}  // namespace

TEST_CASE("Workload.Swf.maps_fields_and_drops") {
  for (const char* file : {"good.swf", "good.swf.gz"}) {
    CAPTURE(file);
    auto r = harness.read_all(harness.fixture(file));
    REQUIRE(r.jobs.size() == 4);
    const auto& j = r.jobs;
    CHECK(j[0].trace_number == 1);
    CHECK(j[0].submit == 0);  // re-based from 100 s
    CHECK(j[0].duration == engine::from_seconds(50));
    CHECK(j[0].estimate == engine::from_seconds(100));
    CHECK((j[0].tasks == 1 && j[0].gpus_per_task == 4));
    CHECK(j[0].status == TraceStatus::pass);
    CHECK(r.str(j[0].user) == "3");
    CHECK(r.str(j[0].pool) == "1");
    CHECK(j[1].trace_number == 3);
    CHECK(j[1].submit == engine::from_seconds(20));
    CHECK((j[1].tasks == 2 && j[1].gpus_per_task == 8));  // 16 GPUs on 8-GPU hosts
    CHECK(j[1].status == TraceStatus::failed);
    CHECK(j[2].trace_number == 5);
    CHECK((j[2].tasks == 3 && j[2].gpus_per_task == 4));  // 12 GPUs: gcd(12, 8) = 4
    CHECK(j[2].estimate == 0);
    CHECK(j[2].status == TraceStatus::killed);
    CHECK(j[2].user == kNoLabel);
    CHECK(j[3].duration == 0);
    CHECK((j[3].tasks == 1 && j[3].gpus_per_task == 5));
    for (std::size_t i = 0; i < j.size(); ++i) CHECK((j[i].id == i && j[i].gang));
    CHECK(r.source->skipped_rows() == 2);
    CHECK(r.reader().drops().count("jobs with unknown run time (-1)") == 1);
    CHECK(r.reader().drops().count("jobs with no processor count (0 or -1)") == 1);
  }
}

TEST_CASE("Workload.Swf.processor_mapping") {
  auto per_proc = harness.read_all(harness.fixture("good.swf"), false, {{"gpus_per_host", "0"}});
  CHECK((per_proc.jobs[1].tasks == 16 && per_proc.jobs[1].gpus_per_task == 1));
  auto doubled = harness.read_all(harness.fixture("good.swf"), false, {{"gpus_per_processor", "2"}});
  CHECK((doubled.jobs[0].tasks == 1 && doubled.jobs[0].gpus_per_task == 8));
  CHECK((doubled.jobs[1].tasks == 4 && doubled.jobs[1].gpus_per_task == 8));
  CHECK(harness.error_of(harness.fixture("good.swf"), {{"gpus_per_processor", "0.5"}}).find("'0.5' is not a whole number") !=
        std::string::npos);
  auto kept = harness.read_all(harness.fixture("good.swf"), false, {{"rebase", "false"}});
  CHECK(kept.jobs[0].submit == engine::from_seconds(100));
}

TEST_CASE("Workload.Swf.header_limits") {
  CHECK(harness.error_of(harness.fixture("over_maxprocs.swf")) ==
        harness.fixture("over_maxprocs.swf") +
            ":6: allocated processors: 65 processors is more than the header's MaxProcs (64)");
}

TEST_CASE("Workload.Swf.out_of_order") {
  CHECK(harness.error_of(harness.fixture("unsorted.swf")).find("unsorted.swf:7: submit: submit time 90 s") != std::string::npos);
  auto sorted = harness.read_all(harness.fixture("unsorted.swf"), false, {{"sort", "true"}});
  REQUIRE(sorted.jobs.size() == 3);
  CHECK(sorted.jobs[0].trace_number == 2);
}

TEST_CASE("Workload.Swf.bad_rows") {
  struct Case {
    const char* file;
    const char* error;
  };
  const Case cases[] = {
      {"truncated.swf", "8: expected 18 fields, found 6 (the last line has no newline: truncated file?)"},
      {"columns.swf", "7: expected 18 fields, found 16"},
      {"not_number.swf", "7: submit time: 'noon' is not a number"},
      {"negative_gpus.swf", "7: allocated processors: -4 is less than -1"},
  };
  for (const auto& c : cases) {
    harness.check_bad_row(c.file, c.error);
  }
}

TEST_CASE("Workload.Swf.empty_and_header_only") {
  CHECK(harness.error_of(harness.fixture("empty.swf")) == harness.fixture("empty.swf") + ":1: empty trace: no header and no jobs");
  // A header and no job: an error, never a run of zero jobs.
  CHECK(harness.error_of(harness.fixture("header_only.swf")) ==
        harness.fixture("header_only.swf") + ": no job in this trace (no data rows)");
}

TEST_CASE("Workload.Swf.unknown_fields_are_dropped_and_counted") {
  // -1 is "unknown" in any field: no submit time, run time or processor count means the row
  // cannot be replayed; it is dropped under the first of those it lacks. No header block.
  auto r = harness.read_all(harness.fixture("unknown_fields.swf"));
  REQUIRE(r.jobs.size() == 2);
  CHECK(r.jobs[0].trace_number == 5);  // 4.0 processors: a whole number, read as 4
  CHECK(r.jobs[0].gpus_per_task * r.jobs[0].tasks == 4);
  CHECK(r.jobs[1].trace_number == 6);
  CHECK(r.str(r.jobs[1].user) == "3.0");
  const auto& drops = r.reader().drops();
  CHECK(drops.count("jobs with unknown submit time (-1)") == 1);
  CHECK(drops.count("jobs with unknown run time (-1)") == 2);
  CHECK(drops.count("jobs with no processor count (0 or -1)") == 1);
  CHECK(r.source->skipped_rows() == 4);  // 6 rows: 2 jobs + 4 left out
  CHECK(r.source->declarations() == "no header block: the cluster's size comes from the scenario");
  CHECK(harness.read_all(harness.fixture("good.swf")).source->declarations() == "MaxProcs 64, MaxNodes 64");
}

TEST_CASE("Workload.Swf.fractional_integers_are_rounded_and_counted") {
  auto r = harness.read_all(harness.fixture("float_int.swf"));
  REQUIRE(r.jobs.size() == 3);
  CHECK(r.jobs[1].tasks * r.jobs[1].gpus_per_task == 5);  // 4.5 processors: rounded half away from zero
  CHECK(r.reader().notices().count("fractional allocated processors rounded to the nearest integer") == 1);
  CHECK(r.reader().notices().count("fractional requested processors rounded to the nearest integer") == 1);
}

TEST_CASE("Workload.Swf.all_dropped_is_an_error") {
  CHECK(harness.error_of(harness.fixture("all_dropped.swf")) ==
        harness.fixture("all_dropped.swf") + ": no job remains: all 2 rows were left out (jobs with unknown run time "
                                              "(-1): 2)");
}

TEST_CASE("Workload.Swf.detected") {
  CHECK(harness.read_all(harness.fixture("good.swf.gz"), false, {}, "auto").jobs.size() == 4);
  CHECK(detect_swf("; Version: 2.2", "x"));
  CHECK(detect_swf("1 0 1 1 1", "trace.swf"));
}

TEST_CASE("Workload.Swf.published_kth") {
  const std::string path = std::string(SCHEDLAB_SHARED_DIR) + "/traces/swf/KTH-SP2-1996-2.1-cln.swf.gz";
  if (!std::filesystem::exists(path)) {
    MESSAGE("skipped: " << path << " not found");
    return;
  }
  auto r = harness.read_all(path);
  // 27,992 jobs; the cleaned KTH log has no job with run time -1 or no processors.
  CHECK(r.jobs.size() + r.source->skipped_rows() == 27992);
  CHECK(r.source->skipped_rows() == 0);
  CHECK(r.jobs.front().submit == 0);
  std::uint64_t max_gpus = 0;
  for (const auto& j : r.jobs) max_gpus = std::max(max_gpus, j.total_gpus());
  CHECK(max_gpus == 100);  // MaxProcs
}
