// The synthetic generator: same seed same trace, documented shapes, submit order, and
// validation errors that name the field.
#include <doctest/doctest.h>

#include <cmath>

#include "util/error.h"
#include "workload/generator.h"

using namespace schedlab;
using namespace schedlab::workload;

namespace {
std::vector<JobSpec> generate(const GeneratorConfig& c, std::uint64_t seed) {
  auto src = make_generator(c, seed);
  std::vector<JobSpec> out;
  JobSpec j;
  while (src->next(j)) out.push_back(j);
  return out;
}
}  // namespace

TEST_CASE("Workload.Generator.same_seed_same_trace") {
  GeneratorConfig c;
  c.jobs = 300;
  auto a = generate(c, 7), b = generate(c, 7), other = generate(c, 8);
  REQUIRE(a.size() == 300);
  REQUIRE(b.size() == 300);
  bool differs = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].submit == b[i].submit);
    CHECK(a[i].duration == b[i].duration);
    CHECK(a[i].tasks == b[i].tasks);
    CHECK(a[i].gpus_per_task == b[i].gpus_per_task);
    CHECK(a[i].user == b[i].user);
    differs = differs || a[i].submit != other[i].submit;
  }
  CHECK(differs);
}

TEST_CASE("Workload.Generator.jobs_follow_the_configured_shapes") {
  GeneratorConfig c;
  c.jobs = 2000;
  c.gpu_sizes = {1, 4, 16};
  c.gpu_size_weights = {1, 1, 1};
  c.gpus_per_host = 8;
  c.duration_min_s = 60;
  c.duration_max_s = 3600;
  auto jobs = generate(c, 1);
  engine::Time last = 0;
  int sizes[3] = {0, 0, 0};
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& j = jobs[i];
    CHECK(j.id == i);
    CHECK(j.submit >= last);  // submit order
    last = j.submit;
    CHECK(j.duration >= 60 * engine::kMicrosPerSecond);
    CHECK(j.duration <= 3600 * engine::kMicrosPerSecond);
    CHECK(j.duration % engine::kMicrosPerSecond == 0);  // whole seconds
    if (j.total_gpus() == 16) {
      CHECK(j.tasks == 2);  // larger than a host: tasks of gpus_per_host
      CHECK(j.gpus_per_task == 8);
      ++sizes[2];
    } else {
      CHECK(j.tasks == 1);
      sizes[j.gpus_per_task == 1 ? 0 : 1] += 1;
    }
  }
  for (int n : sizes) CHECK(n > 550);  // about 667 each
  // Poisson arrivals at 40/h: the mean gap is 90 s.
  double mean_gap = engine::to_seconds(jobs.back().submit) / static_cast<double>(jobs.size());
  CHECK(mean_gap == doctest::Approx(90).epsilon(0.08));
}

TEST_CASE("Workload.Generator.model_requests_by_weight") {
  GeneratorConfig c;
  c.jobs = 1000;
  c.models = {"any", "A100"};
  c.model_weights = {1, 3};
  auto src = make_generator(c, 4);
  JobSpec j;
  int any = 0, a100 = 0;
  while (src->next(j)) {
    const auto& m = src->strings().str(j.gpu_request);
    if (m.empty()) ++any;
    else if (m == "A100") ++a100;
  }
  CHECK(any + a100 == 1000);
  CHECK(static_cast<double>(a100) / any == doctest::Approx(3).epsilon(0.2));
}

TEST_CASE("Workload.Generator.bad_settings_name_the_field") {
  struct Case {
    void (*edit)(GeneratorConfig&);
    const char* message;
  };
  const Case cases[] = {
      {[](GeneratorConfig& c) { c.jobs = 0; }, "generate.jobs: must be at least 1"},
      {[](GeneratorConfig& c) { c.arrival_rate_per_hour = 0; }, "generate.arrival_rate_per_hour: must be > 0"},
      {[](GeneratorConfig& c) { c.gpu_size_weights.pop_back(); },
       "generate.gpu_size_weights: need one weight per entry of gpu_sizes"},
      {[](GeneratorConfig& c) { c.gpu_sizes = {12}, c.gpu_size_weights = {1}; },
       "generate.gpu_sizes: a multi-host size must be a multiple of gpus_per_host (8)"},
      {[](GeneratorConfig& c) { c.models = {"A100"}; }, "generate.model_weights: need one weight per entry of models"},
      {[](GeneratorConfig& c) { c.duration_max_s = 1; }, "generate.duration_min_s: need 0 < duration_min_s"},
  };
  for (const auto& c : cases) {
    GeneratorConfig g;
    c.edit(g);
    try {
      make_generator(g, 1);
      FAIL("expected an InputError for: ", c.message);
    } catch (const util::InputError& e) {
      CHECK(std::string(e.what()).starts_with(c.message));
    }
  }
}
