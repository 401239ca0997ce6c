// The native CSV trace: every column read, columns in any order, strict errors with
// file:line: column, skipping bad rows on request, and write/read round trips.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/error.h"
#include "workload/native_csv.h"
#include "workload/resource_defaults.h"
#include "workload/trace_format.h"

using namespace schedlab;
using namespace schedlab::workload;

namespace {
std::string fixture(const std::string& name) { return std::string(SCHEDLAB_SOURCE_DIR) + "/tests/fixtures/native/" + name; }

std::vector<JobSpec> read_all(JobSource& src) {
  std::vector<JobSpec> out;
  JobSpec j;
  while (src.next(j)) out.push_back(j);
  return out;
}

std::string error_of(const std::string& name, TraceOptions o = {}) {
  try {
    auto src = open_native_csv(fixture(name), o);
    read_all(*src);
  } catch (const util::InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("Workload.NativeCsv.reads_every_column") {
  auto src = open_native_csv(fixture("small.csv"), {});
  auto jobs = read_all(*src);
  REQUIRE(jobs.size() == 4);
  const auto& s = src->strings();
  CHECK(jobs[0].id == 0);
  CHECK(jobs[0].line == 3);
  CHECK(jobs[0].tasks == 1);
  CHECK(jobs[0].gpus_per_task == 4);
  CHECK(jobs[0].duration == 100 * engine::kMicrosPerSecond);
  CHECK(jobs[0].status == TraceStatus::pass);
  CHECK(s.str(jobs[0].user) == "alice");

  CHECK(jobs[1].submit == 500'000);
  CHECK(jobs[1].duration == 50'250'000);
  CHECK(jobs[1].total_gpus() == 8);
  CHECK(s.str(jobs[1].gpu_request) == "A100");
  CHECK(s.str(jobs[1].pool) == "research");
  CHECK(jobs[1].priority == 5);
  CHECK(jobs[1].estimate == 60 * engine::kMicrosPerSecond);

  CHECK(jobs[2].gpu_milli == 250);
  CHECK(jobs[2].fractional());
  CHECK(s.str(jobs[2].gpu_request) == "V100|A100");
  CHECK(jobs[2].min_generation == 70);
  CHECK_FALSE(jobs[2].gang);
  CHECK(jobs[2].kind == JobKind::service);
  CHECK(jobs[2].status == TraceStatus::killed);

  // Empty optional fields take the defaults.
  CHECK(jobs[3].tasks == 3);
  CHECK(jobs[3].gang);
  CHECK(jobs[3].kind == JobKind::batch);
  CHECK(jobs[3].min_generation == 0);
  CHECK(jobs[3].estimate == 0);
  CHECK(jobs[3].trace_number == 3);
}

TEST_CASE("Workload.NativeCsv.columns_in_any_order") {
  auto src = open_native_csv(fixture("columns_reordered.csv"), {});
  auto jobs = read_all(*src);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].trace_number == 7);
  CHECK(jobs[0].submit == 3'500'000);
  CHECK(jobs[0].tasks == 2);
  CHECK(jobs[0].gpus_per_task == 4);
  CHECK(jobs[0].gpu_milli == 1000);
}

TEST_CASE("Workload.NativeCsv.bad_rows_say_where_and_what") {
  struct Case {
    const char* file;
    const char* message;  // after the path
  };
  const Case cases[] = {
      {"missing_field.csv", ":3: gpus_per_task: missing: expected 5 fields, found 4"},
      {"negative_gpus.csv", ":2: gpus_per_task: -2 is less than 0"},
      {"not_a_number.csv", ":2: duration_s: 'ten' is not a number"},
      {"float_tasks.csv", ":2: tasks: '1.5' is not a whole number"},
      {"unsorted.csv", ":3: submit_s: submit times must not decrease (sort the trace by submit_s)"},
      {"typo_column.csv", ":1: taks: unknown column 'taks'; did you mean 'tasks'?"},
      {"missing_column.csv", ":1: gpus_per_task: required column is missing"},
      {"milli_too_big.csv", ":2: gpu_milli: 1500 is more than one GPU (1000); use gpus_per_task"},
      {"milli_multi_gpu.csv", ":2: gpu_milli: a GPU share needs gpus_per_task = 1"},
      {"bad_kind.csv", ":2: kind: unknown kind 'bach'; did you mean 'batch'?"},
      {"empty.csv", ": empty trace: no header row"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.file);
    std::string msg = error_of(c.file);
    CHECK(msg.starts_with(fixture(c.file) + c.message));
  }
}

TEST_CASE("Workload.NativeCsv.cpus_and_mem_gb_per_task") {
  auto src = open_native_csv(fixture("cpus.csv"), {});
  auto jobs = read_all(*src);
  REQUIRE(jobs.size() == 4);
  CHECK((jobs[0].cpu_milli == 8000 && jobs[0].mem_mib == 32 * 1024 && jobs[0].cpu_given && jobs[0].mem_given));
  // A job of 0 GPUs with CPUs: three tasks of half a CPU and 1.25 GB.
  CHECK((jobs[1].gpus_per_task == 0 && jobs[1].tasks == 3 && jobs[1].cpu_milli == 500 && jobs[1].mem_mib == 1280));
  // Empty: not given (the scenario's per-GPU defaults apply).
  CHECK((!jobs[2].cpu_given && !jobs[2].mem_given));
  CHECK((jobs[3].cpu_given && jobs[3].cpu_milli == 12000 && !jobs[3].mem_given));
  // Written back as read: given figures in CPUs and GB, the others empty.
  std::ostringstream out;
  for (const auto& j : jobs) write_native_row(out, j, src->strings());
  const std::string rows = out.str();
  CHECK(rows.find(",8,32,1,,,,\n") != std::string::npos);  // then preemptible, group, min_gpus, max_gpus, model
  CHECK(rows.find(",0.5,1.25,1,,,,\n") != std::string::npos);
  CHECK(rows.find(",12,,1,,,,\n") != std::string::npos);
}

TEST_CASE("Workload.NativeCsv.bad_cpus_and_memory") {
  struct Case {
    const char* row;
    const char* message;
  };
  const Case cases[] = {
      {"0,0,10,1,1,-1,4", ":2: cpus: -1 is out of range [0, 100000]"},
      {"0,0,10,1,1,four,4", ":2: cpus: 'four' is not a number"},
      {"0,0,10,1,1,0.0001,4", ":2: cpus: 0.0001 is finer than a thousandth of a CPU"},
      {"0,0,10,1,1,2,-4", ":2: mem_gb: -4 is out of range [0, 4000000]"},
      {"0,0,10,1,1,2,1e300", ":2: mem_gb: 1e+300 is out of range [0, 4000000]"},
      {"0,0,10,1,0,,", ":2: gpus_per_task: 0 GPUs and no CPUs: a job needs GPUs, or CPUs (column cpus)"},
  };
  const auto path = std::filesystem::temp_directory_path() / "schedlab_bad_cpus.csv";
  for (const auto& c : cases) {
    CAPTURE(std::string(c.row));
    std::ofstream(path) << "id,submit_s,duration_s,tasks,gpus_per_task,cpus,mem_gb\n" << c.row << "\n";
    std::string msg = "no error";
    try {
      auto src = open_native_csv(path.string(), {});
      read_all(*src);
    } catch (const util::InputError& e) {
      msg = e.what();
    }
    CHECK(msg == path.string() + c.message);
  }
  std::filesystem::remove(path);
}

TEST_CASE("Workload.ResourceDefaults.per_gpu_of_a_task_unless_the_trace_gives_them") {
  ResourceDefaults d;  // 4 CPUs and 16 GB per GPU
  JobSpec eight;
  eight.gpus_per_task = 8;
  apply_resource_defaults(eight, d);
  CHECK((eight.cpu_milli == 32000 && eight.mem_mib == 128 * 1024));
  JobSpec share;
  share.gpu_milli = 250;  // a quarter of a GPU: a quarter of the defaults
  apply_resource_defaults(share, d);
  CHECK((share.cpu_milli == 1000 && share.mem_mib == 4096));
  JobSpec given;
  given.cpu_milli = 500;
  given.cpu_given = true;
  apply_resource_defaults(given, d);
  CHECK((given.cpu_milli == 500 && given.mem_mib == 16384));  // only the memory was missing
  JobSpec cpu_job;
  cpu_job.gpus_per_task = 0;
  apply_resource_defaults(cpu_job, d);
  CHECK((cpu_job.cpu_milli == 0 && cpu_job.mem_mib == 0));  // no GPU, no default
  JobSpec huge;
  huge.gpus_per_task = 4'000'000'000u;
  apply_resource_defaults(huge, ResourceDefaults{4'000'000'000u, 1});
  CHECK(huge.cpu_milli == 4'294'967'295u);  // saturates: such a task fits no host and is dropped
}

TEST_CASE("Workload.NativeCsv.zero_gpus_is_refused") {
  const auto path = std::filesystem::temp_directory_path() / "schedlab_zero_gpus.csv";
  std::ofstream(path) << "id,submit_s,duration_s,tasks,gpus_per_task\n0,0,10,1,0\n";
  try {
    auto src = open_native_csv(path.string(), {});
    read_all(*src);
    FAIL("expected an InputError");
  } catch (const util::InputError& e) {
    CHECK(e.line() == 2);
    CHECK(e.field() == "gpus_per_task");
  }
  std::filesystem::remove(path);
}

TEST_CASE("Workload.NativeCsv.skip_bad_rows_counts_them") {
  TraceOptions o;
  o.skip_bad_rows = true;
  auto src = open_native_csv(fixture("one_bad_row.csv"), o);
  auto jobs = read_all(*src);
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].trace_number == 0);
  CHECK(jobs[1].trace_number == 2);
  CHECK(jobs[1].id == 1);  // ids stay dense
  CHECK(src->skipped_rows() == 1);
  CHECK(error_of("one_bad_row.csv").starts_with(fixture("one_bad_row.csv") + ":3: tasks: 'x' is not a number"));
}

TEST_CASE("Workload.NativeCsv.write_then_read_gives_the_same_jobs") {
  auto src = open_native_csv(fixture("small.csv"), {});
  auto jobs = read_all(*src);
  std::ostringstream out;
  write_native_header(out);
  for (const auto& j : jobs) write_native_row(out, j, src->strings());
  const auto path = std::filesystem::temp_directory_path() / "schedlab_round_trip.csv";
  std::ofstream(path) << out.str();
  auto again_src = open_trace(path.string(), {});  // detected as native
  auto again = read_all(*again_src);
  REQUIRE(again.size() == jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    CAPTURE(i);
    CHECK(again[i].trace_number == jobs[i].trace_number);
    CHECK(again[i].submit == jobs[i].submit);
    CHECK(again[i].duration == jobs[i].duration);
    CHECK(again[i].estimate == jobs[i].estimate);
    CHECK(again[i].tasks == jobs[i].tasks);
    CHECK(again[i].gpus_per_task == jobs[i].gpus_per_task);
    CHECK(again[i].gpu_milli == jobs[i].gpu_milli);
    CHECK(again[i].min_generation == jobs[i].min_generation);
    CHECK(again[i].priority == jobs[i].priority);
    CHECK(again[i].gang == jobs[i].gang);
    CHECK(again[i].kind == jobs[i].kind);
    CHECK(again[i].status == jobs[i].status);
    CHECK((again[i].cpu_milli == jobs[i].cpu_milli && again[i].cpu_given == jobs[i].cpu_given));
    CHECK((again[i].mem_mib == jobs[i].mem_mib && again[i].mem_given == jobs[i].mem_given));
    CHECK(again_src->strings().str(again[i].gpu_request) == src->strings().str(jobs[i].gpu_request));
    CHECK(again_src->strings().str(again[i].user) == src->strings().str(jobs[i].user));
    CHECK(again_src->strings().str(again[i].pool) == src->strings().str(jobs[i].pool));
  }
  std::filesystem::remove(path);
}

TEST_CASE("Workload.NativeCsv.model_column_round_trip") {
  // The training model each job names (docs: traces/README.md, column `model`): read as
  // interned text, empty = none, and written back by `trace convert` as read.
  auto src = open_native_csv(fixture("models.csv"), {});
  auto jobs = read_all(*src);
  REQUIRE(jobs.size() == 3);
  CHECK(src->strings().str(jobs[0].model) == "resnet50");
  CHECK(jobs[1].model == kNoLabel);
  CHECK(src->strings().str(jobs[2].model) == "bert-large");
  std::ostringstream out;
  write_native_header(out);
  for (const auto& j : jobs) write_native_row(out, j, src->strings());
  CHECK(out.str().find("min_gpus,max_gpus,model\n") != std::string::npos);
  CHECK(out.str().find(",,,resnet50\n") != std::string::npos);
  const auto path = std::filesystem::temp_directory_path() / "schedlab_models_round_trip.csv";
  std::ofstream(path) << out.str();
  auto again_src = open_trace(path.string(), {});
  auto again = read_all(*again_src);
  REQUIRE(again.size() == jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i)
    CHECK(again_src->strings().str(again[i].model) == src->strings().str(jobs[i].model));
  // A trace without the column names no model.
  auto plain = open_native_csv(fixture("small.csv"), {});
  for (const auto& j : read_all(*plain)) CHECK(j.model == kNoLabel);
}
