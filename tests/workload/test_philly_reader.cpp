// Tests of the Philly cluster_job_log JSON reader: mapping, drops, bad rows, detection, and the published files;
// unknown and repeated keys, every content error and drop, invalid JSON in a multi-line object, gzip.
#include <doctest/doctest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
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

TEST_CASE("Workload.Philly.maps_jobs_and_attempts") {
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

TEST_CASE("Workload.Philly.bad_objects") {
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

TEST_CASE("Workload.Philly.empty") {
  CHECK(harness.error_of(harness.fixture("empty.json")) == harness.fixture("empty.json") + ":1: empty trace: no JSON");
  // An empty list: no job, an error (never a run of zero jobs).
  CHECK(harness.error_of(harness.fixture("empty_list.json")) ==
        harness.fixture("empty_list.json") + ": no job in this trace (no data rows)");
}

TEST_CASE("Workload.Philly.detected") {
  CHECK(harness.read_all(harness.fixture("cluster_job_log.json"), false, {}, "auto").jobs.size() == 4);
  CHECK(harness.read_all(harness.fixture("cluster_job_log.jsonl"), false, {}, "auto").jobs.size() == 4);
}

namespace {

// A trace file in the temporary folder, removed at the end of the test.
struct PhillyTempFile {
  std::string path;
  explicit PhillyTempFile(const std::string& text, const std::string& name = "trace.json")
      : path((std::filesystem::temp_directory_path() / ("schedlab-philly-" + std::to_string(::getpid()) + "-" + name))
                 .string()) {
    std::ofstream(path, std::ios::binary) << text;
  }
  ~PhillyTempFile() { std::filesystem::remove(path); }
};

// A job object around `attempts` (JSON text), with the other keys as given.
std::string philly_job(const std::string& attempts, const std::string& more = "") {
  return R"({"jobid": "j", "submitted_time": "2017-10-07 00:00:00", "attempts": )" + attempts + more + "}";
}
const std::string kPhillyAttempt =
    R"({"start_time": "2017-10-07 00:00:10", "end_time": "2017-10-07 00:01:10", "detail": [{"gpus": ["g0"]}]})";

}  // namespace

TEST_CASE("Workload.Philly.skips_unknown_keys_of_any_type") {
  // The published log has more keys than the reader needs; any JSON value passes.
  PhillyTempFile f(
      "[\n"
      R"({"extra": {"nested": [1, -2.5e3, true, false, null, {"x": "]}\"{"}], "s": "\u00e9"}, "status": "Pass", )"
      R"("vc": "v\u0031", "jobid": "app\u005f1", "attempts": [{"start_time": "2017-10-07 01:00:00", "exit": -1, )"
      R"("end_time": "2017-10-07 02:00:00", "detail": [{"ip": "m0", "gpus": ["gpu0", {"id": 1}], "util": [0.5]}]}], )"
      R"("submitted_time": "2017-10-07 00:59:00", "user": "u1", "more": [[]], "n": 0})"
      "\n]\n");
  auto r = harness.read_all(f.path);
  REQUIRE(r.jobs.size() == 1);
  CHECK(r.str(r.jobs[0].trace_id) == "app_1");
  CHECK(r.str(r.jobs[0].pool) == "v1");
  CHECK(r.str(r.jobs[0].user) == "u1");
  CHECK((r.jobs[0].tasks == 1 && r.jobs[0].gpus_per_task == 2));
  CHECK(r.jobs[0].duration == engine::from_seconds(3600));
  CHECK(r.jobs[0].status == TraceStatus::pass);
}

TEST_CASE("Workload.Philly.repeated_key_last_counts") {
  // As a JSON object read into a map keeps it: the last of a repeated key counts.
  PhillyTempFile f(
      R"({"jobid": 5, "jobid": "a", "submitted_time": "x", "submitted_time": "2017-10-07 00:00:00", )"
      R"("attempts": "no", "attempts": [{"detail": [{"gpus": 1}], "detail": [{"gpus": "x", "gpus": ["g", "g"]}], )"
      R"("start_time": 3, "start_time": "2017-10-07 00:00:10", "end_time": null, "end_time": "2017-10-07 00:01:10"}]})"
      "\n");
  auto r = harness.read_all(f.path);
  REQUIRE(r.jobs.size() == 1);
  CHECK(r.str(r.jobs[0].trace_id) == "a");
  CHECK((r.jobs[0].tasks == 1 && r.jobs[0].gpus_per_task == 2));
  CHECK(r.jobs[0].duration == engine::from_seconds(60));
}

TEST_CASE("Workload.Philly.content_errors_and_drops") {
  // Each object alone on line 2; the message is "file:2: field: what".
  struct Case {
    std::string object;
    std::string error;
  };
  const std::string a = kPhillyAttempt;
  const Case cases[] = {
      {R"({"jobid": 1})", "jobid: expected a string"},
      {R"({"jobid": ""})", "jobid: missing"},
      {R"({"jobid": "j"})", "submitted_time: missing"},
      {R"({"jobid": "j", "submitted_time": 5})", "submitted_time: expected a date-time string"},
      {R"({"jobid": "j", "submitted_time": "2017-10-07"})",
       "submitted_time: '2017-10-07' is not a date-time (YYYY-MM-DD HH:MM:SS)"},
      {philly_job("{}"), "attempts: expected a list"},
      {philly_job("[" + a + ", 3]"), "attempts[1]: expected an object"},
      {philly_job(R"([{"detail": {}}])"), "attempts[0].detail: expected a list"},
      {philly_job(R"([{"detail": [{"gpus": ["g"]}, {"gpus": 2}]}])"),
       "attempts[0].detail[1].gpus: expected a list of GPUs"},
      {philly_job(R"([{"detail": [{"gpus": ["g"]}, 7, {}]}])"), "attempts[0].detail[1].gpus: expected a list of GPUs"},
      {philly_job(R"([{"start_time": 5, "detail": [{"gpus": ["g"]}]}])"),
       "attempts[0].start_time: expected a date-time string"},
      {philly_job(R"([{"start_time": null, "detail": [{"gpus": ["g"]}]}, {"start_time": "bad"}])"),
       "attempts[1].start_time: 'bad' is not a date-time (YYYY-MM-DD HH:MM:SS)"},
      {philly_job("[" + a + R"(, {"end_time": 7}])"), "attempts[1].end_time: expected a date-time string"},
      {philly_job("[" + a + R"(, {"end_time": "2017-10-07 00:00:00"}])"),
       "attempts[1].end_time: is before the first start_time"},
      {philly_job("[" + a + "]", R"(, "user": 5)"), "user: expected a string"},
      {philly_job("[" + a + "]", R"(, "vc": [])"), "vc: expected a string"},
      {philly_job("[" + a + "]", R"(, "status": {})"), "status: expected a string"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.object);
    PhillyTempFile f("[\n" + c.object + "\n]\n");
    CHECK(harness.error_of(f.path) == f.path + ":2: " + c.error);
  }

  struct Drop {
    std::string object;
    const char* reason;
  };
  const Drop drops[] = {
      {R"({"jobid": "j", "submitted_time": "2017-10-07 00:00:00"})", "jobs with no attempts"},
      {philly_job("null"), "jobs with no attempts"},
      {philly_job("[]"), "jobs with no attempts"},
      {philly_job(R"([{"start_time": "2017-10-07 00:00:10"}])"), "jobs with no GPUs in their first attempt"},
      {philly_job(R"([{"detail": null}])"), "jobs with no GPUs in their first attempt"},
      {philly_job(R"([{"detail": [{"gpus": []}]}])"), "jobs with no GPUs in their first attempt"},
      {philly_job(R"([{"start_time": "None", "detail": [{"gpus": ["g"]}]}, {"start_time": ""}, {}])"),
       "jobs with no attempt start_time"},
      {philly_job(R"([{"start_time": "2017-10-07 00:00:10", "detail": [{"gpus": ["g"]}]}])"),
       "jobs still running at the snapshot (last end_time null)"},
      {philly_job("[" + a + R"(, {"end_time": "None"}])"), "jobs still running at the snapshot (last end_time null)"},
  };
  for (const auto& d : drops) {
    CAPTURE(d.object);
    PhillyTempFile f("[\n" + d.object + ",\n" + philly_job("[" + a + "]") + "\n]\n");
    auto r = harness.read_all(f.path);
    CHECK(r.jobs.size() == 1);
    CHECK(r.reader().drops().count(d.reason) == 1);
  }
}

TEST_CASE("Workload.Philly.invalid_json_names_its_line") {
  // A pretty-printed object with an error on its fourth line: the error's line, the object's
  // first line and the column; reading goes on after the object (its brackets counted, a
  // bracket in a string not).
  const std::string good = philly_job("[" + kPhillyAttempt + "]");
  PhillyTempFile f("[\n" + good + ",\n{\n  \"jobid\": \"b\",\n  \"x\": \"]]\",\n  \"attempts\": [1 2]\n},\n" + good +
                   "\n]\n");
  CHECK(harness.error_of(f.path) == f.path +
                                        ":6: invalid JSON in the job object starting on line 3: expected ',' or ']' "
                                        "after an array element, found '2' (column 18)");
  auto r = harness.read_all(f.path, true);
  CHECK(r.jobs.size() == 2);
  CHECK(r.reader().bad_rows() == 1);

  // A job list that is not closed, and a stray value between objects.
  PhillyTempFile open("[\n" + good + ",\n" + good + "\n", "open.json");
  CHECK(harness.error_of(open.path) == open.path + ":3: the job list has no closing ']' (truncated file?)");
  PhillyTempFile stray(good + "\n7, " + good + "\n" + good + "\n", "stray.json");
  CHECK(harness.error_of(stray.path) == stray.path + ":2: expected a job object '{', found '7'");
  CHECK(harness.read_all(stray.path, true).jobs.size() == 2);  // the rest of line 2 is passed over
}

TEST_CASE("Workload.Philly.reads_gzip") {
  std::ifstream in(harness.fixture("cluster_job_log.json"), std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  PhillyTempFile f("", "cluster_job_log.json.gz");
  gzFile gz = gzopen(f.path.c_str(), "wb");
  REQUIRE(gz);
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
  CHECK(harness.read_all(f.path).jobs.size() == 4);
}
