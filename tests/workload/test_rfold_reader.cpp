// Tests of the RFold CSV reader: mapping, reshaping, bad rows, and the published files.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/error.h"
#include "workload/rfold_reader.h"
#include "workload/trace_format.h"
#include "workload/trace_reader_util.h"
#include "../support/trace_reader_harness.h"

using namespace schedlab;
using namespace schedlab::workload;

namespace {

const testing::TraceReaderHarness harness("rfold");
using Read = testing::ReadTrace;

}  // namespace

TEST_CASE("Workload.Rfold.maps_columns_and_shapes") {
  auto r = harness.read_all(harness.fixture("good.csv"));
  REQUIRE(r.jobs.size() == 5);
  const auto& j = r.jobs;
  CHECK(j[0].id == 0);
  CHECK(j[0].trace_number == 0);
  CHECK(j[0].submit == 0);
  CHECK(j[0].duration == engine::from_seconds(3613033.0));
  CHECK((j[0].tasks == 1 && j[0].gpus_per_task == 1));
  CHECK(j[1].submit == engine::from_seconds(10.5));
  CHECK(j[1].duration == engine::from_seconds(120.25));
  CHECK((j[1].tasks == 2 && j[1].gpus_per_task == 8));  // 8+8: two hosts of 8
  CHECK((j[2].tasks == 3 && j[2].gpus_per_task == 4));  // 8+4: 12 GPUs as 3 x 4
  CHECK((j[3].tasks == 6 && j[3].gpus_per_task == 8));  // 48 on "one host" > 8: 6 x 8
  CHECK(j[3].duration == 0);
  CHECK((j[4].tasks == 4 && j[4].gpus_per_task == 2));
  for (std::size_t i = 0; i < j.size(); ++i) {
    CHECK(j[i].id == i);
    CHECK(j[i].gang);
  }
  CHECK(r.source->skipped_rows() == 0);
  auto* t = dynamic_cast<TraceReaderSource*>(r.source.get());
  REQUIRE(t);
  CHECK(t->notices().total() == 2);
}

TEST_CASE("Workload.Rfold.no_host_limit_keeps_listed_hosts") {
  auto r = harness.read_all(harness.fixture("good.csv"), false, {{"gpus_per_host", "0"}});
  REQUIRE(r.jobs.size() == 5);
  CHECK((r.jobs[3].tasks == 1 && r.jobs[3].gpus_per_task == 48));
  CHECK((r.jobs[2].tasks == 3 && r.jobs[2].gpus_per_task == 4));
}

TEST_CASE("Workload.Rfold.unknown_arg_is_named") {
  CHECK(harness.error_of(harness.fixture("good.csv"), {{"gpus_per_hots", "8"}}).find("did you mean 'gpus_per_host'") !=
        std::string::npos);
  CHECK(harness.error_of(harness.fixture("good.csv"), {{"gpus_per_host", "-1"}}).find("-1 is out of range [0, 4294967295]") != std::string::npos);
}

TEST_CASE("Workload.Rfold.size_must_match_shape") {
  CHECK(harness.error_of(harness.fixture("size_mismatch.csv")) ==
        harness.fixture("size_mismatch.csv") + ":2: size: 12 is not the GPU count of shape '8+8' (16)");
}

TEST_CASE("Workload.Rfold.unsorted_rows_are_bad_unless_sorted") {
  std::string e = harness.error_of(harness.fixture("unsorted.csv"));
  CHECK(e.find("unsorted.csv:3: submit: submit time 5 s is before the previous job's 10 s") != std::string::npos);
  auto skipped = harness.read_all(harness.fixture("unsorted.csv"), true);
  CHECK(skipped.jobs.size() == 2);
  CHECK(skipped.source->skipped_rows() == 1);
  auto sorted = harness.read_all(harness.fixture("unsorted.csv"), false, {{"sort", "true"}});
  REQUIRE(sorted.jobs.size() == 3);
  CHECK(sorted.jobs[0].trace_number == 1);
  CHECK(sorted.jobs[0].submit == 0);  // re-based: 5 s is the origin
  CHECK(sorted.jobs[1].submit == engine::from_seconds(5));
  CHECK(sorted.jobs[2].id == 2);
  auto kept = harness.read_all(harness.fixture("unsorted.csv"), false, {{"sort", "true"}, {"rebase", "false"}});
  CHECK(kept.jobs[0].submit == engine::from_seconds(5));
}

TEST_CASE("Workload.Rfold.bad_rows") {
  struct Case {
    const char* file;
    const char* error;  // after "path:"
  };
  const Case cases[] = {
      {"float_int.csv", "3: size: '8.5' is not a whole number"},
      {"truncated.csv", "4: expected 6 fields, found 4 (the last line has no newline: truncated file?)"},
      {"columns.csv", "3: expected 6 fields, found 5"},
      {"not_number.csv", "3: arrival time (sec): 'soon' is not a number"},
      {"negative_gpus.csv", "3: size: -8 is less than 1"},
  };
  for (const auto& c : cases) {
    auto r = harness.check_bad_row(c.file, c.error);
    CHECK(r.jobs.back().id == 1);
  }
}

TEST_CASE("Workload.Rfold.empty_and_header_only") {
  CHECK(harness.error_of(harness.fixture("empty.csv")) == harness.fixture("empty.csv") + ":1: empty trace: no header row");
  CHECK_THROWS_AS(harness.read_all(harness.fixture("empty.csv"), true), util::InputError);
  // A header and no job: an error, never a run of zero jobs.
  CHECK(harness.error_of(harness.fixture("header_only.csv")) ==
        harness.fixture("header_only.csv") + ": no job in this trace (no data rows)");
}

TEST_CASE("Workload.Rfold.detected") {
  auto r = harness.read_all(harness.fixture("good.csv"), false, {}, "auto");
  CHECK(r.jobs.size() == 5);
  CHECK(detect_rfold_csv("#job id,arrival time (sec),topology,shape,size,duration (sec)", "x.csv"));
  CHECK_FALSE(detect_rfold_csv("id,submit_s,duration_s", "x.csv"));
}

TEST_CASE("Workload.Rfold.published_traces") {
  const std::string shared = SCHEDLAB_SHARED_DIR;
  const std::string philly = shared + "/traces/philly/philly_trace.csv";
  const std::string crux = shared + "/traces/lingjun/crux.csv";
  if (!std::filesystem::exists(philly) || !std::filesystem::exists(crux)) {
    MESSAGE("skipped: " << shared << "/traces not found");
    return;
  }
  auto p = harness.read_all(philly);
  CHECK(p.jobs.size() == 111549);
  CHECK(p.source->skipped_rows() == 0);
  std::uint64_t gpus = 0;
  for (const auto& j : p.jobs) gpus += j.total_gpus();
  CHECK(gpus == 194266);  // sum of the size column
  auto c = harness.read_all(crux);
  CHECK(c.jobs.size() == 2498);
  CHECK(c.source->skipped_rows() == 0);
  gpus = 0;
  for (const auto& j : c.jobs) gpus += j.total_gpus();
  CHECK(gpus == 100062);
}

TEST_CASE("Workload.Rfold.size_below_one_is_a_gpu_share") {
  // As openb's gpu_milli: thousandths of one GPU, rounded to the nearest, at least 1.
  auto r = harness.read_all(harness.fixture("fractional.csv"));
  REQUIRE(r.jobs.size() == 3);
  CHECK((r.jobs[0].tasks == 1 && r.jobs[0].gpus_per_task == 1 && r.jobs[0].gpu_milli == 460));
  CHECK(r.jobs[0].fractional());
  CHECK(r.jobs[1].gpu_milli == 1);  // 0.0004 rounds to 0 thousandths: one, the least share
  CHECK_FALSE(r.jobs[2].fractional());
  CHECK(r.reader().notices().count("jobs with a size below 1, read as a share of one GPU (in thousandths)") == 2);
}
