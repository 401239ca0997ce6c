// Tests of the openb pod-list reader: mapping, drops, bad rows, detection, and the published files.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/error.h"
#include "workload/openb_reader.h"
#include "workload/trace_format.h"
#include "workload/trace_reader_util.h"
#include "../support/scratch_dir.h"
#include "../support/trace_reader_harness.h"

using namespace schedlab;
using namespace schedlab::workload;

namespace {

const testing::TraceReaderHarness harness("openb");
using Read = testing::ReadTrace;

}  // namespace

TEST_CASE("Workload.Openb.maps_columns_shares_and_models") {
  auto r = harness.read_all(harness.fixture("good.csv"));
  REQUIRE(r.jobs.size() == 5);
  const auto& j = r.jobs;
  // Sorted by creation_time (pod-0003 and pod-0002 were created before pod-0001), re-based to
  // the first. "openb-pod-<n>" keeps n as trace_number; other names are interned as trace_id.
  CHECK((j[0].trace_number == 0 && j[0].trace_id == kNoLabel));
  CHECK(j[1].trace_number == 3);
  CHECK(j[2].trace_number == 2);
  CHECK(j[3].trace_number == 1);
  CHECK(r.str(j[4].trace_id) == "custom-pod");
  CHECK(j[0].submit == 0);
  CHECK(j[1].submit == engine::from_seconds(50));
  CHECK(j[2].submit == engine::from_seconds(100));
  CHECK(j[3].submit == engine::from_seconds(200));
  CHECK(j[4].submit == engine::from_seconds(300));
  for (std::size_t i = 0; i < j.size(); ++i) CHECK(j[i].id == i);

  CHECK((j[0].tasks == 1 && j[0].gpus_per_task == 1 && j[0].gpu_milli == 1000));
  CHECK(j[0].duration == engine::from_seconds(1000));  // deletion - scheduled
  CHECK(j[0].priority == 2);                           // LS
  CHECK(j[0].status == TraceStatus::unknown);          // Running
  // cpu_milli and memory_mib are the task's CPUs (thousandths) and memory (MiB), as given.
  CHECK((j[0].cpu_milli == 12000 && j[0].mem_mib == 16384 && j[0].cpu_given && j[0].mem_given));
  // A pod without GPUs is a CPU job: no GPU, 4 CPUs, 8 GB (its published gpu_milli 0 is ignored).
  CHECK((j[1].gpus_per_task == 0 && !j[1].needs_gpu() && j[1].gpu_milli == 1000));
  CHECK((j[1].cpu_milli == 4000 && j[1].mem_mib == 8192));
  CHECK(j[1].duration == engine::from_seconds(750));
  CHECK(j[2].gpus_per_task == 8);
  CHECK((j[2].cpu_milli == 88000 && j[2].mem_mib == 327680));
  CHECK(r.str(j[2].gpu_request) == "V100M16|V100M32");
  CHECK(j[2].duration == engine::from_seconds(650));
  CHECK(j[2].priority == 1);  // Burstable
  CHECK(j[2].status == TraceStatus::failed);
  CHECK((j[3].gpus_per_task == 1 && j[3].gpu_milli == 460 && j[3].fractional()));
  CHECK(j[3].duration == engine::from_seconds(350));
  CHECK(j[3].priority == 0);  // BE
  CHECK(j[3].status == TraceStatus::pass);
  CHECK(j[3].gpu_request == kNoLabel);
  CHECK(j[4].gpus_per_task == 2);
  CHECK(j[4].duration == engine::from_seconds(600));  // never scheduled: deletion - creation

  CHECK(r.source->skipped_rows() == 0);
  CHECK(r.reader().bad_rows() == 0);
  CHECK(r.reader().out_of_order_rows() == 2);
  CHECK(r.reader().notices().total() == 1);
}

TEST_CASE("Workload.Openb.cpu_jobs_drop_keeps_the_gpu_pods_only") {
  // cpu_jobs: drop reads the list as schedlab did before it counted CPUs.
  auto r = harness.read_all(harness.fixture("good.csv"), false, {{"cpu_jobs", "drop"}});
  REQUIRE(r.jobs.size() == 4);
  for (const auto& j : r.jobs) CHECK(j.needs_gpu());
  CHECK(r.reader().drops().count("CPU-only pods (num_gpu 0; cpu_jobs: drop)") == 1);
  CHECK(harness.error_of(harness.fixture("good.csv"), {{"cpu_jobs", "keep"}}).find("cpu_jobs") != std::string::npos);
}

TEST_CASE("Workload.Openb.cpu_and_memory_columns_are_checked") {
  struct Case {
    const char* file;
    const char* error;
  };
  const Case cases[] = {
      {"negative_cpu.csv", "3: cpu_milli: -500 is less than 0"},
      {"memory_not_number.csv", "3: memory_mib: 'lots' is not a number"},
      {"cpu_out_of_range.csv", "3: cpu_milli: 200000000 is out of range [0, 100000000]"},
  };
  for (const auto& c : cases) harness.check_bad_row(c.file, c.error);
}

TEST_CASE("Workload.Openb.share_needs_one_gpu") {
  CHECK(harness.error_of(harness.fixture("share_multi.csv")) ==
        harness.fixture("share_multi.csv") + ":2: gpu_milli: a GPU share (500) needs num_gpu 1, found 2");
}

TEST_CASE("Workload.Openb.bad_rows") {
  struct Case {
    const char* file;
    const char* error;
  };
  const Case cases[] = {
      {"float_int.csv", "3: num_gpu: '1.5' is not a whole number"},
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

TEST_CASE("Workload.Openb.empty_and_header_only") {
  CHECK(harness.error_of(harness.fixture("empty.csv")) == harness.fixture("empty.csv") + ":1: empty trace: no header row");
  // A header and no job: an error, never a run of zero jobs.
  CHECK(harness.error_of(harness.fixture("header_only.csv")) ==
        harness.fixture("header_only.csv") + ": no job in this trace (no data rows)");
}

TEST_CASE("Workload.Openb.detected") {
  CHECK(harness.read_all(harness.fixture("good.csv"), false, {}, "auto").jobs.size() == 5);
}

TEST_CASE("Workload.Openb.published_pod_lists") {
  const std::string dir = std::string(SCHEDLAB_SHARED_DIR) + "/traces/openb/";
  if (!std::filesystem::exists(dir + "openb_pod_list_default.csv")) {
    MESSAGE("skipped: " << dir << " not found");
    return;
  }
  auto r = harness.read_all(dir + "openb_pod_list_default.csv");
  // 8,152 pods, of which 1,088 ask for no GPU: they are CPU jobs now, none is dropped.
  CHECK(r.jobs.size() == 8152);
  CHECK(r.source->skipped_rows() == 0);
  std::size_t shares = 0, cpu_jobs = 0;
  for (const auto& j : r.jobs) {
    shares += j.fractional();
    cpu_jobs += !j.needs_gpu();
    CHECK((j.cpu_given && j.mem_given));
  }
  CHECK(shares == 3078);
  CHECK(cpu_jobs == 1088);
  auto gpu_only = harness.read_all(dir + "openb_pod_list_default.csv", false, {{"cpu_jobs", "drop"}});
  CHECK(gpu_only.reader().drops().count("CPU-only pods (num_gpu 0; cpu_jobs: drop)") == 1088);
  CHECK(gpu_only.jobs.size() == 7064);
  auto spec = harness.read_all(dir + "openb_pod_list_gpuspec33.csv");
  std::size_t constrained = 0;
  for (const auto& j : spec.jobs) constrained += j.gpu_request != kNoLabel;
  CHECK(constrained > 2000);
  auto share40 = harness.read_all(dir + "openb_pod_list_gpushare40.csv");  // unordered: sorted in memory
  CHECK(share40.reader().out_of_order_rows() > 0);
  for (std::size_t i = 1; i < share40.jobs.size(); ++i) REQUIRE(share40.jobs[i - 1].submit <= share40.jobs[i].submit);
}

TEST_CASE("Workload.Openb.timeless_pod_list_serves_the_packing_mode_only") {
  // The multi-GPU and GPU-sharing variants were published as `name,cpu_milli,memory_mib,
  // num_gpu,gpu_milli`: no times to replay.
  const auto path = harness.fixture("timeless.csv");
  workload::TraceOptions options;
  options.format = "openb";
  CHECK_THROWS_WITH_AS(workload::open_trace(path, options),
                       doctest::Contains("timeless.csv:1: creation_time: this pod list has no creation_time or "
                                         "deletion_time: it is made for the packing experiment"),
                       util::InputError);
  options.times_optional = true;
  auto source = workload::open_trace(path, options);
  std::vector<JobSpec> jobs;
  for (JobSpec j; source->next(j);) jobs.push_back(j);
  REQUIRE(jobs.size() == 5);
  // File order; no times.
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    CHECK(jobs[i].trace_number == i);
    CHECK((jobs[i].submit == 0 && jobs[i].duration == 0));
  }
  CHECK((jobs[0].gpus_per_task == 1 && jobs[0].gpu_milli == 460 && jobs[0].cpu_milli == 8000));
  CHECK((jobs[1].gpus_per_task == 2 && jobs[1].gpu_milli == 1000 && jobs[1].mem_mib == 65536));
  CHECK((!jobs[2].needs_gpu() && jobs[2].cpu_milli == 4000));
  CHECK(jobs[3].gpus_per_task == 8);
}

TEST_CASE("Workload.Openb.creation_without_deletion_is_missing_a_column") {
  testing::ScratchDir dir("openb-half-times");
  const auto path = (dir.path / "pods.csv").string();
  std::ofstream(path) << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time\nopenb-pod-0,1000,10,1,1000,5\n";
  CHECK_THROWS_WITH_AS(harness.read_all(path),
                       doctest::Contains("pods.csv:1: deletion_time: required column is missing"), util::InputError);
}
