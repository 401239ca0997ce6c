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

using namespace schedlab;
using namespace schedlab::workload;

namespace {

std::string fixture(const std::string& name) {
  return std::string(SCHEDLAB_SOURCE_DIR) + "/tests/fixtures/traces/helios/" + name;
}

struct Read {
  std::unique_ptr<JobSource> source;
  std::vector<JobSpec> jobs;
  const TraceReaderSource& reader() const { return dynamic_cast<const TraceReaderSource&>(*source); }
  std::string str(Label l) const { return source->strings().str(l); }
};

Read read_all(const std::string& path, bool skip = false, std::map<std::string, std::string> args = {},
              const std::string& format = "helios") {
  TraceOptions options;
  options.format = format;
  options.skip_bad_rows = skip;
  options.args = std::move(args);
  Read r;
  r.source = open_trace(path, options);
  JobSpec job;
  while (r.source->next(job)) r.jobs.push_back(job);
  return r;
}

std::string error_of(const std::string& path, std::map<std::string, std::string> args = {}) {
  try {
    read_all(path, false, std::move(args));
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("Workload.Helios.MapsColumns") {
  auto r = read_all(fixture("cluster_log.csv"));
  REQUIRE(r.jobs.size() == 4);
  const auto& j = r.jobs;
  CHECK(j[0].trace_number == 1425510);  // submitted first, listed fifth
  CHECK(j[0].submit == 0);
  CHECK((j[0].tasks == 2 && j[0].gpus_per_task == 6));
  CHECK(j[0].duration == engine::from_seconds(3600));
  CHECK(j[0].status == TraceStatus::failed);  // TIMEOUT
  CHECK(j[1].trace_number == 1425511);
  CHECK(j[1].submit == engine::from_seconds(60));
  CHECK(j[1].duration == engine::from_seconds(36848));
  CHECK((j[1].tasks == 1 && j[1].gpus_per_task == 1));
  CHECK(j[1].status == TraceStatus::pass);
  CHECK(r.str(j[1].user) == "uXBbc");
  CHECK(r.str(j[1].pool) == "vcJkd");
  CHECK((j[2].tasks == 1 && j[2].gpus_per_task == 4));
  CHECK(j[2].duration == engine::from_seconds(249));
  CHECK((j[3].tasks == 2 && j[3].gpus_per_task == 8));
  CHECK(j[3].duration == engine::from_seconds(675173));  // end - start, not end - submit
  CHECK(j[3].status == TraceStatus::killed);
  for (std::size_t i = 0; i < j.size(); ++i) CHECK(j[i].id == i);
  CHECK(r.source->skipped_rows() == 2);
  CHECK(r.reader().drops().count("CPU-only jobs (gpu_num 0)") == 1);
  CHECK(r.reader().drops().count("jobs that never started (no start_time)") == 1);
  CHECK(r.reader().out_of_order_rows() == 1);
}

TEST_CASE("Workload.Helios.EpochSecondsAndUnevenNodes") {
  auto r = read_all(fixture("epoch.csv"));
  REQUIRE(r.jobs.size() == 2);
  CHECK(r.jobs[0].submit == 0);
  CHECK(r.jobs[1].submit == engine::from_seconds(10));
  CHECK((r.jobs[0].tasks == 1 && r.jobs[0].gpus_per_task == 8));
  CHECK((r.jobs[1].tasks == 1 && r.jobs[1].gpus_per_task == 3));  // 3 GPUs on 2 nodes: shaped from gpu_num
  CHECK(r.reader().notices().total() == 1);
}

TEST_CASE("Workload.Helios.BadTime") {
  CHECK(error_of(fixture("bad_time.csv")) ==
        fixture("bad_time.csv") +
            ":2: submit_time: '2020-13-09 18:41:01' is neither a date-time (YYYY-MM-DD HH:MM:SS) nor seconds");
}

TEST_CASE("Workload.Helios.BadRows") {
  struct Case {
    const char* file;
    const char* error;
  };
  const Case cases[] = {
      {"float_int.csv", "3: gpu_num: '1.0' is not an integer"},
      {"truncated.csv", "4: expected 12 fields, found 7 (the last line has no newline: truncated file?)"},
      {"columns.csv", "3: expected 12 fields, found 11"},
      {"not_number.csv", "3: gpu_num: 'one' is not a number"},
      {"negative_gpus.csv", "3: gpu_num: -4 is less than 0"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.file);
    CHECK(error_of(fixture(c.file)) == fixture(c.file) + ":" + c.error);
    auto r = read_all(fixture(c.file), true);
    CHECK(r.jobs.size() == 2);
    CHECK(r.source->skipped_rows() == 1);
  }
}

TEST_CASE("Workload.Helios.EmptyAndHeaderOnly") {
  CHECK(error_of(fixture("empty.csv")) == fixture("empty.csv") + ":1: empty trace: no header row");
  CHECK(read_all(fixture("header_only.csv")).jobs.empty());
}

TEST_CASE("Workload.Helios.Detected") {
  CHECK(read_all(fixture("cluster_log.csv"), false, {}, "auto").jobs.size() == 4);
}
