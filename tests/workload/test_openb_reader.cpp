// Tests of the openb pod-list reader: mapping, drops, bad rows, detection, and the published files.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/error.h"
#include "workload/openb_reader.h"
#include "workload/trace_format.h"
#include "workload/trace_reader_util.h"
#include "../support/trace_reader_harness.h"

using namespace schedlab;
using namespace schedlab::workload;

namespace {

const testing::TraceReaderHarness harness("openb");
using Read = testing::ReadTrace;

}  // namespace

TEST_CASE("Workload.Openb.MapsColumnsSharesAndModels") {
  auto r = harness.read_all(harness.fixture("good.csv"));
  REQUIRE(r.jobs.size() == 4);
  const auto& j = r.jobs;
  // Sorted by creation_time (pod-0002 was created before pod-0001), re-based to the first.
  // "openb-pod-<n>" keeps n as trace_number; other names are interned as trace_id.
  CHECK((j[0].trace_number == 0 && j[0].trace_id == kNoLabel));
  CHECK(j[1].trace_number == 2);
  CHECK(j[2].trace_number == 1);
  CHECK(r.str(j[3].trace_id) == "custom-pod");
  CHECK(j[0].submit == 0);
  CHECK(j[1].submit == engine::from_seconds(100));
  CHECK(j[2].submit == engine::from_seconds(200));
  CHECK(j[3].submit == engine::from_seconds(300));
  for (std::size_t i = 0; i < j.size(); ++i) CHECK(j[i].id == i);

  CHECK((j[0].tasks == 1 && j[0].gpus_per_task == 1 && j[0].gpu_milli == 1000));
  CHECK(j[0].duration == engine::from_seconds(1000));  // deletion - scheduled
  CHECK(j[0].priority == 2);                           // LS
  CHECK(j[0].status == TraceStatus::unknown);          // Running
  CHECK(j[1].gpus_per_task == 8);
  CHECK(r.str(j[1].gpu_request) == "V100M16|V100M32");
  CHECK(j[1].duration == engine::from_seconds(650));
  CHECK(j[1].priority == 1);  // Burstable
  CHECK(j[1].status == TraceStatus::failed);
  CHECK((j[2].gpus_per_task == 1 && j[2].gpu_milli == 460 && j[2].fractional()));
  CHECK(j[2].duration == engine::from_seconds(350));
  CHECK(j[2].priority == 0);  // BE
  CHECK(j[2].status == TraceStatus::pass);
  CHECK(j[2].gpu_request == kNoLabel);
  CHECK(j[3].gpus_per_task == 2);
  CHECK(j[3].duration == engine::from_seconds(600));  // never scheduled: deletion - creation

  CHECK(r.source->skipped_rows() == 1);
  CHECK(r.reader().drops().count("CPU-only pods (num_gpu 0)") == 1);
  CHECK(r.reader().bad_rows() == 0);
  CHECK(r.reader().out_of_order_rows() == 1);
  CHECK(r.reader().notices().total() == 1);
}

TEST_CASE("Workload.Openb.ShareNeedsOneGpu") {
  CHECK(harness.error_of(harness.fixture("share_multi.csv")) ==
        harness.fixture("share_multi.csv") + ":2: gpu_milli: a GPU share (500) needs num_gpu 1, found 2");
}

TEST_CASE("Workload.Openb.BadRows") {
  struct Case {
    const char* file;
    const char* error;
  };
  const Case cases[] = {
      {"float_int.csv", "3: num_gpu: '1.5' is not an integer"},
      {"truncated.csv", "4: expected 11 fields, found 5 (the last line has no newline: truncated file?)"},
      {"columns.csv", "3: expected 11 fields, found 10"},
      {"not_number.csv", "3: creation_time: 'x1' is not a number"},
      {"negative_gpus.csv", "3: num_gpu: -1 is less than 0"},
  };
  for (const auto& c : cases) {
    auto r = harness.check_bad_row(c.file, c.error);
    CHECK(r.reader().bad_rows() == 1);
  }
}

TEST_CASE("Workload.Openb.EmptyAndHeaderOnly") {
  CHECK(harness.error_of(harness.fixture("empty.csv")) == harness.fixture("empty.csv") + ":1: empty trace: no header row");
  CHECK(harness.read_all(harness.fixture("header_only.csv")).jobs.empty());
}

TEST_CASE("Workload.Openb.Detected") {
  CHECK(harness.read_all(harness.fixture("good.csv"), false, {}, "auto").jobs.size() == 4);
}

TEST_CASE("Workload.Openb.PublishedPodLists") {
  const std::string dir = std::string(SCHEDLAB_SHARED_DIR) + "/traces/openb/";
  if (!std::filesystem::exists(dir + "openb_pod_list_default.csv")) {
    MESSAGE("skipped: " << dir << " not found");
    return;
  }
  auto r = harness.read_all(dir + "openb_pod_list_default.csv");
  // 8,152 pods, of which 1,088 ask for no GPU.
  CHECK(r.jobs.size() + r.source->skipped_rows() == 8152);
  CHECK(r.reader().drops().count("CPU-only pods (num_gpu 0)") == 1088);
  CHECK(r.jobs.size() == 7064);
  std::size_t shares = 0;
  for (const auto& j : r.jobs) shares += j.fractional();
  CHECK(shares == 3078);
  auto spec = harness.read_all(dir + "openb_pod_list_gpuspec33.csv");
  std::size_t constrained = 0;
  for (const auto& j : spec.jobs) constrained += j.gpu_request != kNoLabel;
  CHECK(constrained > 2000);
  auto share40 = harness.read_all(dir + "openb_pod_list_gpushare40.csv");  // unordered: sorted in memory
  CHECK(share40.reader().out_of_order_rows() > 0);
  for (std::size_t i = 1; i < share40.jobs.size(); ++i) REQUIRE(share40.jobs[i - 1].submit <= share40.jobs[i].submit);
}
