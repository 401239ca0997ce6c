// Elastic ranges (workload/elastic_range.h): every bad range named by field, the one-GPU-task
// form, and the scenario's scales.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "workload/elastic_range.h"
#include "workload/native_csv.h"
#include "workload/trace_format.h"

using namespace schedlab::workload;

namespace {
JobSpec job(std::uint32_t tasks, std::uint32_t gpus, std::uint16_t min, std::uint16_t max) {
  JobSpec j;
  j.tasks = tasks;
  j.gpus_per_task = gpus;
  j.min_gpus = min;
  j.max_gpus = max;
  return j;
}
}  // namespace

TEST_CASE("Workload.ElasticRange.errors") {
  struct Case {
    JobSpec job;
    std::uint64_t cluster;
    const char* field;  // nullptr: no error
  };
  const Case cases[] = {
      {job(2, 1, 0, 0), 8, nullptr},      // rigid: no range
      {job(2, 1, 1, 4), 8, nullptr},      // elastic, traced 2 in [1, 4]
      {job(2, 1, 2, 2), 8, nullptr},      // rigid, range given
      {job(2, 1, 0, 4), 8, "min_gpus"},   // min 0
      {job(2, 1, 4, 1), 8, "min_gpus"},   // upside down
      {job(8, 1, 1, 4), 8, "min_gpus"},   // traced size outside
      {job(1, 2, 1, 4), 8, "max_gpus"},   // two-GPU tasks
      {job(2, 1, 1, 16), 8, "max_gpus"},  // above the cluster
      {job(2, 1, 1, 16), 0, nullptr},     // cluster unknown (a trace reader)
  };
  for (const auto& c : cases) {
    CAPTURE(c.job.min_gpus);
    CAPTURE(c.job.max_gpus);
    const auto e = range_error(c.job, c.cluster);
    if (!c.field) {
      CHECK(!e);
    } else {
      REQUIRE(e);
      CHECK(e->field == c.field);
    }
  }
}

TEST_CASE("Workload.ElasticRange.one_gpu_tasks") {
  auto j = job(2, 8, 2, 32);
  as_one_gpu_tasks(j);
  CHECK(j.tasks == 16);
  CHECK(j.gpus_per_task == 1);
  auto rigid = job(1, 8, 0, 0);
  as_one_gpu_tasks(rigid);
  CHECK(rigid.tasks == 1);
}

namespace {
class ListSource final : public JobSource {
 public:
  explicit ListSource(std::vector<JobSpec> jobs) : jobs_(std::move(jobs)) {}
  bool next(JobSpec& out) override {
    if (next_ == jobs_.size()) return false;
    out = jobs_[next_++];
    return true;
  }
  StringPool& strings() override { return strings_; }

 private:
  std::vector<JobSpec> jobs_;
  std::size_t next_ = 0;
  StringPool strings_;
};
}  // namespace

// elastic: {min_scale: 0.5, max_scale: 4} on a 16-GPU cluster: [max(1, floor(n/2)), min(4n, 16)];
// a range from the trace wins; GPU shares stay rigid.
TEST_CASE("Workload.ElasticRange.scenario_scales") {
  std::vector<JobSpec> in{job(1, 1, 0, 0), job(3, 1, 0, 0), job(1, 8, 0, 0), job(2, 1, 2, 2), job(1, 1, 0, 0)};
  in[4].gpu_milli = 500;
  ElasticDefaults d;
  d.min_scale = 0.5;
  d.max_scale = 4;
  auto src = with_elastic_defaults(std::make_unique<ListSource>(in), d, 16);
  struct Want {
    std::uint16_t min, max;
    std::uint32_t tasks;
  };
  const Want want[] = {{1, 4, 1}, {1, 12, 3}, {4, 16, 8}, {2, 2, 2}, {0, 0, 1}};
  JobSpec j;
  for (const auto& w : want) {
    REQUIRE(src->next(j));
    CHECK(j.min_gpus == w.min);
    CHECK(j.max_gpus == w.max);
    CHECK(j.tasks == w.tasks);
    CHECK(!range_error(j, 16));
  }
  CHECK(!src->next(j));
}

TEST_CASE("Workload.ElasticRange.native_round_trip") {
  // `trace convert` writes a range where the trace gave one, and reading it back gives the job
  // again; a job without a range leaves both cells empty.
  const auto dir = std::filesystem::temp_directory_path() / ("schedlab-elastic-rt-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto in = (dir / "in.csv").string(), out = (dir / "out.csv").string();
  std::ofstream(in) << "id,submit_s,duration_s,tasks,gpus_per_task,min_gpus,max_gpus\n"
                       "1,0,100,2,8,4,64\n"
                       "2,5,100,1,4,,\n";
  TraceOptions options;
  options.format = "native";
  std::vector<JobSpec> first;
  {
    auto src = open_trace(in, options);
    std::ofstream w(out);
    write_native_header(w);
    for (JobSpec j; src->next(j);) {
      first.push_back(j);
      write_native_row(w, j, src->strings());
    }
  }
  std::ifstream text(out);
  std::string header, row1, row2;
  std::getline(text, header);
  std::getline(text, row1);
  std::getline(text, row2);
  CHECK(header.substr(header.size() - 23) == "min_gpus,max_gpus,model");
  CHECK(row1.substr(row1.size() - 6) == ",4,64,");
  CHECK(row2.substr(row2.size() - 3) == ",,,");
  auto again = open_trace(out, options);
  std::size_t i = 0;
  for (JobSpec j; again->next(j); ++i) {
    REQUIRE(i < first.size());
    CHECK(j.tasks == first[i].tasks);
    CHECK(j.gpus_per_task == first[i].gpus_per_task);
    CHECK(j.min_gpus == first[i].min_gpus);
    CHECK(j.max_gpus == first[i].max_gpus);
  }
  CHECK(i == 2);
  CHECK(first[0].tasks == 16);  // an elastic job runs one-GPU tasks
  std::filesystem::remove_all(dir);
}
