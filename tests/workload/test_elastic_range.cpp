// Elastic ranges (workload/elastic_range.h): every bad range named by field, the one-GPU-task
// form, and the scenario's scales.
#include <doctest/doctest.h>

#include "workload/elastic_range.h"

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
