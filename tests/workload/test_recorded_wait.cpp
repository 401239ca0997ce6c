// Tests of the recorded wait each reader takes from its trace (issue 27, item 8): a row with a
// known wait gives that JobSpec::recorded_wait_s, a row without one gives none; a rescaled or
// resampled workload drops the record (it belongs to the trace's own arrivals).
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <string>

#include "../support/scratch_dir.h"
#include "../support/trace_reader_harness.h"
#include "workload/arrival_scale.h"
#include "workload/trace_reader_util.h"

using namespace schedlab;
using namespace schedlab::workload;

namespace {
// Writes `text` to a file of the scratch folder and reads it as `format`.
testing::ReadTrace read_text(const testing::ScratchDir& dir, const std::string& name, const std::string& format,
                             const std::string& text) {
  const auto path = (dir.path / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return testing::TraceReaderHarness(format).read_all(path);
}
}  // namespace

TEST_CASE("Workload.RecordedWait.of_rounds_and_refuses_what_is_no_wait") {
  CHECK(recorded_wait_of(0) == 0);
  CHECK(recorded_wait_of(15348) == 15348);
  CHECK(recorded_wait_of(2.5) == 3);  // whole seconds, rounded half away from zero
  CHECK(recorded_wait_of(2.4) == 2);
  CHECK(recorded_wait_of(-1) == kNoRecordedWait);    // SWF's "unknown"
  CHECK(recorded_wait_of(-0.5) == kNoRecordedWait);  // a start before the submit
  CHECK(recorded_wait_of(std::nan("")) == kNoRecordedWait);
  CHECK(recorded_wait_of(5e9) == kNoRecordedWait);  // beyond 32 bits of seconds
  CHECK(recorded_wait_of(4294967294.0) == 4294967294u);
}

TEST_CASE("Workload.RecordedWait.costs_no_memory_per_job") {
  // It fills what was padding after the id: the 1M-job bench keeps its 120 bytes a job.
  if constexpr (sizeof(void*) == 8) CHECK(sizeof(JobSpec) == 120);
  CHECK(!JobSpec{}.has_recorded_wait());
}

TEST_CASE("Workload.RecordedWait.swf_wait_field") {
  testing::ScratchDir dir("recorded-wait-swf");
  // Field 3 is the wait: 15348 s, then -1 (unknown), then 0.
  auto r = read_text(dir, "w.swf", "swf",
                     "; MaxProcs: 64\n"
                     "1 100 15348 50 4 -1 -1 4 100 -1 1 3 1 -1 1 -1 -1 -1\n"
                     "2 110 -1 60 4 -1 -1 4 100 -1 1 3 1 -1 1 -1 -1 -1\n"
                     "3 120 0 70 4 -1 -1 4 100 -1 1 3 1 -1 1 -1 -1 -1\n");
  REQUIRE(r.jobs.size() == 3);
  CHECK(r.jobs[0].recorded_wait_s == 15348);
  CHECK(!r.jobs[1].has_recorded_wait());
  CHECK(r.jobs[2].recorded_wait_s == 0);
  // The record never changes the replay.
  CHECK(r.jobs[0].submit == 0);
  CHECK(r.jobs[0].duration == engine::from_seconds(50));
}

TEST_CASE("Workload.RecordedWait.philly_first_attempt_start") {
  testing::ScratchDir dir("recorded-wait-philly");
  // a: submitted 01:11:39, first attempt 01:12:09 (30 s), a retry after; b: its first attempt
  // has no start_time, the second starts 100 s after submit; c: started before its submit.
  auto r =
      read_text(dir, "w.jsonl", "philly",
                R"({"status": "Pass", "vc": "v", "jobid": "a", "user": "u", "submitted_time": "2017-10-07 01:11:39", )"
                R"("attempts": [{"start_time": "2017-10-07 01:12:09", "end_time": "2017-10-07 01:13:23", "detail": )"
                R"([{"ip": "m0", "gpus": ["gpu0"]}]}, {"start_time": "2017-10-07 01:20:00", "end_time": )"
                R"("2017-10-07 02:00:00", "detail": [{"ip": "m0", "gpus": ["gpu0"]}]}]})"
                "\n"
                R"({"status": "Pass", "vc": "v", "jobid": "b", "user": "u", "submitted_time": "2017-10-07 02:00:00", )"
                R"("attempts": [{"start_time": null, "end_time": null, "detail": [{"ip": "m0", "gpus": ["gpu0"]}]}, )"
                R"({"start_time": "2017-10-07 02:01:40", "end_time": "2017-10-07 03:00:00", "detail": []}]})"
                "\n"
                R"({"status": "Pass", "vc": "v", "jobid": "c", "user": "u", "submitted_time": "2017-10-07 04:00:10", )"
                R"("attempts": [{"start_time": "2017-10-07 04:00:00", "end_time": "2017-10-07 05:00:00", "detail": )"
                R"([{"ip": "m0", "gpus": ["gpu0"]}]}]})"
                "\n");
  REQUIRE(r.jobs.size() == 3);
  CHECK(r.str(r.jobs[0].trace_id) == "a");
  CHECK(r.jobs[0].recorded_wait_s == 30);
  CHECK(r.jobs[1].recorded_wait_s == 100);
  CHECK(!r.jobs[2].has_recorded_wait());
  CHECK(r.reader().notices().count(kStartBeforeSubmit) == 1);
}

TEST_CASE("Workload.RecordedWait.helios_and_acme_start_time") {
  testing::ScratchDir dir("recorded-wait-helios");
  auto h = read_text(dir, "cluster_log.csv", "helios",
                     "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
                     "1,u,v,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:42:01,2020-06-09 19:00:00,0,60\n"
                     "2,u,v,1,1,1,COMPLETED,2020-06-09 18:50:00,2020-06-09 18:49:00,2020-06-09 19:00:00,0,0\n"
                     "3,u,v,1,1,1,COMPLETED,7200,7300.4,8000,0,0\n");
  REQUIRE(h.jobs.size() == 3);
  // Sorted by submit: job 3 (epoch seconds 7200) comes first.
  std::map<std::uint64_t, std::uint32_t> wait;
  for (const auto& job : h.jobs) wait[job.trace_number] = job.recorded_wait_s;
  CHECK(wait[1] == 60);
  CHECK(wait[2] == kNoRecordedWait);  // started before its submit: no wait known
  CHECK(wait[3] == 100);              // 100.4 s, rounded
  CHECK(h.reader().notices().count(kStartBeforeSubmit) == 1);
  // Acme: the same columns, date-times with a zone.
  auto a = testing::TraceReaderHarness("acme").read_all(testing::TraceReaderHarness("acme").fixture("seren.csv"));
  REQUIRE(a.jobs.size() >= 2);
  CHECK(a.jobs[0].recorded_wait_s == 32);  // 00:18:22 to 00:18:54
  CHECK(a.jobs[1].recorded_wait_s == 13);  // 00:23:58 to 00:24:11
}

TEST_CASE("Workload.RecordedWait.openb_scheduled_time") {
  // openb: scheduled_time - creation_time, whole seconds; a pod never scheduled has none.
  testing::TraceReaderHarness h("openb");
  auto r = h.read_all(h.fixture("good.csv"));
  REQUIRE(r.jobs.size() == 5);
  std::map<std::string, std::uint32_t> wait;
  for (const auto& job : r.jobs)
    wait[job.trace_id != kNoLabel ? r.str(job.trace_id) : std::to_string(job.trace_number)] = job.recorded_wait_s;
  CHECK(wait.at("0") == 0);   // 100 -> 100
  CHECK(wait.at("1") == 50);  // 300 -> 350
  CHECK(wait.at("2") == 50);  // 200 -> 250
  CHECK(wait.at("3") == 0);
  CHECK(wait.at("custom-pod") == kNoRecordedWait);  // Pending, never scheduled
}

TEST_CASE("Workload.RecordedWait.formats_without_a_record_give_none") {
  // PAI 2020's task table submits each task at its start (its default `submit: task`); rfold and
  // the native format record no start.
  for (const char* file : {"pai2020/pai_task_table.csv", "rfold/good.csv"}) {
    CAPTURE(file);
    const std::string format = std::string(file).substr(0, std::string(file).find('/'));
    testing::TraceReaderHarness h(format);
    auto r = h.read_all(std::string(SCHEDLAB_SOURCE_DIR) + "/tests/fixtures/traces/" + file);
    REQUIRE(!r.jobs.empty());
    for (const auto& j : r.jobs) CHECK(!j.has_recorded_wait());
  }
}

TEST_CASE("Workload.RecordedWait.arrival_scale_drops_the_record") {
  testing::ScratchDir dir("recorded-wait-scale");
  const auto path = (dir.path / "w.swf").string();
  std::ofstream(path) << "1 100 30 50 4 -1 -1 4 100 -1 1 3 1 -1 1 -1 -1 -1\n"
                         "2 200 40 50 4 -1 -1 4 100 -1 1 3 1 -1 1 -1 -1 -1\n";
  TraceOptions options;
  options.format = "swf";
  for (double scale : {1.0, 0.5}) {
    CAPTURE(scale);
    auto source = with_arrival_scale(open_trace(path, options), scale);
    JobSpec j;
    REQUIRE(source->next(j));
    REQUIRE(source->next(j));
    if (scale == 1.0)
      CHECK(j.recorded_wait_s == 40);
    else
      CHECK(!j.has_recorded_wait());
  }
}
