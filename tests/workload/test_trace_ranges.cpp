// Numbers out of range in every trace reader and the generator: each is a located error that
// names the limit (file:line: field: value and range), never a wrapped count, a 0-GPU job, a
// negative time or undefined behaviour. One case per defect class; the fixtures are the
// reduced reproducers of the robustness issue (R01..R24).
#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "util/error.h"
#include "workload/generator.h"
#include "workload/native_csv.h"
#include "workload/trace_format.h"
#include "workload/trace_reader_util.h"
#include "../support/trace_reader_harness.h"

using namespace schedlab;
using namespace schedlab::workload;

namespace {

std::string native_fixture(const std::string& name) {
  return std::string(SCHEDLAB_SOURCE_DIR) + "/tests/fixtures/native/" + name;
}

// The first InputError reading a native fixture (in the native format, or detected) raises.
std::string native_error(const std::string& name, const std::string& format = "native") {
  const testing::TraceReaderHarness native("native");
  try {
    native.read_all(native_fixture(name), false, {}, format);
  } catch (const util::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// Reading `name` with skip_bad_rows keeps the two good rows and counts the bad one.
void check_skips_one(const std::string& name) {
  const testing::TraceReaderHarness native("native");
  auto r = native.read_all(native_fixture(name), true);
  CHECK(r.jobs.size() == 2);
  CHECK(r.source->skipped_rows() == 1);
}

constexpr const char* kSecondsRange = "is out of range [0, 3153600000] (100 years)";

}  // namespace

// R01, R02, R03: a duration beyond 100 years wrapped to INT64_MIN µs (a job "finishing" in
// 0 s with negative GPU-hours) or overflowed the executor; R03 blew up the timeline.
TEST_CASE("Workload.Ranges.duration_beyond_100_years") {
  CHECK(native_error("duration_overflow.csv") ==
        native_fixture("duration_overflow.csv") + ":3: duration_s: 10000000000000 s " + kSecondsRange);
  CHECK(native_error("duration_near_int64_max.csv") ==
        native_fixture("duration_near_int64_max.csv") + ":3: duration_s: 9223372036854 s " + kSecondsRange);
  check_skips_one("duration_overflow.csv");

  testing::TraceReaderHarness rfold("rfold"), swf("swf"), openb("openb");
  rfold.check_bad_row("range_duration.csv", "3: duration (sec): 10000000000000 s " + std::string(kSecondsRange));
  swf.check_bad_row("range_run_time.swf", "4: run time: 10000000000000 s " + std::string(kSecondsRange));
  openb.check_bad_row("range_deletion.csv",
                      "3: deletion_time: 9999999999999 s after scheduled_time is out of range: a run time is at "
                      "most 100 years (3153600000 s)");
  testing::TraceReaderHarness philly("philly");
  philly.check_bad_row("far_submit.json",
                       "3: attempts[0].end_time: 255611289599 s after the first start_time is out of range: a run "
                       "time is at most 100 years (3153600000 s)");
}

// An overflowing submit time used to wrap negative and read as "submit times must not
// decrease"; it is out of range, and says so.
TEST_CASE("Workload.Ranges.submit_out_of_range_is_not_out_of_order") {
  const std::string e = native_error("submit_overflow.csv");
  CHECK(e == native_fixture("submit_overflow.csv") + ":3: submit_s: 10000000000000 s " + kSecondsRange);
  CHECK(e.find("must not decrease") == std::string::npos);
}

// R03b, R07: Helios times far from 1970 (a 4294967295 s submit; -1e300 whose re-basing
// overflowed) are refused at the row, before any re-basing.
TEST_CASE("Workload.Ranges.helios_far_times_and_rebase") {
  testing::TraceReaderHarness helios("helios");
  helios.check_bad_row("range_far_submit.csv",
                       "3: submit_time: 4294967295 s is out of range [-3153600000, 3153600000] (100 years)");
  helios.check_bad_row("range_rebase.csv",
                       "3: submit_time: -1e+300 s is out of range [-3153600000, 3153600000] (100 years)");
}

// R04, R05, R05b: a count of 2^32 wrapped to 0 in 32 bits (a 0-task job; a division by zero
// in the scheduler).
TEST_CASE("Workload.Ranges.counts_beyond_32_bits") {
  CHECK(native_error("tasks_2p32.csv") ==
        native_fixture("tasks_2p32.csv") + ":3: tasks: 4294967296 is out of range [1, 4294967295]");
  check_skips_one("tasks_2p32.csv");
  CHECK(native_error("gpus_product_2p32.csv") ==
        native_fixture("gpus_product_2p32.csv") +
            ":3: gpus_per_task: 65536 tasks x 65536 GPUs = 4294967296 GPUs in one job is out of range [1, 4294967295]");

  testing::TraceReaderHarness openb("openb"), pai("pai2020"), helios("helios"), rfold("rfold"), swf("swf");
  openb.check_bad_row("range_num_gpu.csv", "3: num_gpu: 4294967296 is out of range [0, 4294967295]");
  pai.check_bad_row("range_plan_gpu_2p32.csv",
                    "2: plan_gpu: 429496729600 is out of range [0, 429496729500] (percent of one GPU: at most "
                    "4294967295 GPUs)");
  pai.check_bad_row("range_inst_num.csv", "2: inst_num: 4294967296 is out of range [1, 4294967295]");
  helios.check_bad_row("range_gpu_num.csv", "3: gpu_num: 4294967296 is out of range [0, 4294967295]");
  rfold.check_bad_row("range_shape.csv", "3: size: 4294967296 is out of range [1, 4294967295]");
  swf.check_bad_row("range_procs.swf", "4: allocated processors: 4294967296 is out of range [-1, 4294967295]");

  // The shape rule itself refuses a job of more than 2^32-1 GPUs.
  const std::string file = "t.csv";
  CHECK_THROWS_WITH_AS(shape_from_hosts({4294967295ull, 1}, 8, util::FieldContext{file, 7, "shape"}),
                       "t.csv:7: shape: 4294967296 GPUs in one job is out of range [1, 4294967295]", util::InputError);
}

// R06: plan_gpu 1e300 became gpu_milli 0 (a job using no GPU ran on "h0:0").
TEST_CASE("Workload.Ranges.gpu_share_out_of_range") {
  testing::TraceReaderHarness pai("pai2020");
  pai.check_bad_row("range_plan_gpu_1e300.csv",
                    "2: plan_gpu: 1e+300 is out of range [0, 429496729500] (percent of one GPU: at most 4294967295 "
                    "GPUs)");
  const std::string file = "t.csv";
  CHECK_THROWS_WITH_AS(util::checked_share_milli(0, util::FieldContext{file, 2, "gpu_milli"}),
                       "t.csv:2: gpu_milli: 0 is out of range [1, 1000]", util::InputError);
}

// R24: a JSON number beyond a double (1e400) escaped as "internal error" (exit 1).
TEST_CASE("Workload.Ranges.philly_number_overflow_is_a_bad_row") {
  testing::TraceReaderHarness philly("philly");
  const std::string path = philly.fixture("number_overflow.json");
  const std::string e = philly.error_of(path);
  CHECK(e.rfind(path + ":3: invalid JSON in this job object: ", 0) == 0);
  CHECK(e.find("number overflow") != std::string::npos);
  auto r = philly.read_all(path, true);
  CHECK(r.jobs.size() == 2);
  CHECK(r.reader().bad_rows() == 1);
}

// R16: a native trace whose first line is a '#' comment is detected (the reader accepts it).
TEST_CASE("Workload.Ranges.detects_native_after_leading_comment") {
  const testing::TraceReaderHarness native("native");
  auto r = native.read_all(native_fixture("comment_first.csv"), false, {}, "auto");
  REQUIRE(r.jobs.size() == 2);
  CHECK(r.jobs[1].tasks == 2);
  CHECK(r.jobs[1].gpus_per_task == 4);
  // rfold's header starts with '#' too and is still detected as rfold.
  const testing::TraceReaderHarness rfold("rfold");
  CHECK(rfold.read_all(rfold.fixture("good.csv"), false, {}, "auto").jobs.size() > 0);
}

// `trace stats --format x` used to blame workload.format; messages name the option given.
TEST_CASE("Workload.Ranges.messages_name_the_format_option_used") {
  TraceOptions o;
  o.format = "nativ";
  o.format_field = "--format";
  o.args_field = "--arg";
  CHECK_THROWS_WITH_AS(
      open_trace(native_fixture("small.csv"), o),
      "--format: unknown trace format 'nativ'; did you mean 'native'? valid: native, rfold, philly, pai2020, "
      "openb, helios, acme, swf, sacct, auto",
      util::InputError);
  o.format = "auto";
  CHECK_THROWS_WITH_AS(open_trace(native_fixture("unknown_format.txt"), o),
                       (native_fixture("unknown_format.txt") +
                        ":1: --format: cannot detect the trace format from the first line; set --format")
                           .c_str(),
                       util::InputError);
  o.format = "swf";
  o.args = {{"gpus_per_host", "x"}};
  CHECK_THROWS_WITH_AS(open_trace(std::string(SCHEDLAB_SOURCE_DIR) + "/tests/fixtures/traces/swf/good.swf", o),
                       "--arg gpus_per_host (swf): 'x' is not a whole number", util::InputError);
  o.args = {{"gpus_per_host", "4294967296"}};
  CHECK_THROWS_WITH_AS(open_trace(std::string(SCHEDLAB_SOURCE_DIR) + "/tests/fixtures/traces/swf/good.swf", o),
                       "--arg gpus_per_host (swf): 4294967296 is out of range [0, 4294967295]", util::InputError);
}

// R14: a tiny arrival rate overflowed the generator's microsecond clock (and, when written,
// the negation of INT64_MIN in the seconds formatter).
TEST_CASE("Workload.Ranges.generator_clock") {
  GeneratorConfig c;
  c.jobs = 5;
  c.arrival_rate_per_hour = 1e-300;
  CHECK_THROWS_WITH_AS(make_generator(c, 1),
                       "generate.arrival_rate_per_hour: 1e-300 is out of range: at least 1.14e-06 per hour (a mean "
                       "gap of at most 100 years)",
                       util::InputError);
  c.arrival_rate_per_hour = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH_AS(make_generator(c, 1), "generate.arrival_rate_per_hour: inf is not a finite number",
                       util::InputError);
  c.arrival_rate_per_hour = 40;
  c.duration_max_s = 1e13;
  CHECK_THROWS_WITH_AS(make_generator(c, 1),
                       "generate.duration_max_s: 10000000000000 s is out of range: at most 100 years (3153600000 s)",
                       util::InputError);

  // A rate just above the limit: each mean gap is ~57 years, so the clock passes 100 years
  // within a few jobs and stops with an error rather than wrapping.
  c = GeneratorConfig{};
  c.jobs = 50;
  c.arrival_rate_per_hour = 2e-6;
  auto gen = make_generator(c, 1);
  JobSpec j;
  std::string error;
  try {
    while (gen->next(j)) CHECK(j.submit >= 0);
  } catch (const util::InputError& e) {
    error = e.what();
  }
  CHECK(error.rfind("generate.arrival_rate_per_hour: job ", 0) == 0);
  CHECK(error.find("beyond 100 years (3153600000 s)") != std::string::npos);
}
