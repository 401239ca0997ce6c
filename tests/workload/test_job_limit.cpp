// The one bound on a run's jobs (workload/job_limit.h), where each count meets it: generated
// jobs, services' instances and scale-ups, cron occurrences in a scenario and in a trace's row,
// and the stream a run reads (R29, R31b of issue 25).
#include <doctest/doctest.h>

#include <fstream>

#include "../support/input_errors.h"
#include "../support/scratch_dir.h"
#include "config/scenario.h"
#include "run/scenario_run.h"
#include "util/error.h"
#include "workload/job_limit.h"
#include "workload/native_csv.h"

using namespace schedlab;
using namespace schedlab::testing;
using namespace schedlab::workload;

namespace {
// Jobs 0, 1, 2, ... without end.
class Endless final : public JobSource {
 public:
  bool next(JobSpec& out) override {
    out = JobSpec{};
    out.trace_number = n_++;
    return true;
  }
  StringPool& strings() override { return strings_; }

 private:
  StringPool strings_;
  std::uint64_t n_ = 0;
};

// The InputError of loading a scenario whose `workload:` is `workload` (and drawing its jobs).
util::InputError scenario_error(const std::string& workload) {
  ScratchDir dir("job-limit");
  const auto path = (dir.path / "s.yaml").string();
  std::ofstream(path) << "name: limit\ncluster: " << fixture("clusters/tiny.yaml") << "\nworkload:\n" << workload;
  return input_error_of([&] {
    auto sc = config::load_scenario(path);
    util::Notices notices;
    auto src = run::open_workload(sc, notices);
    for (JobSpec j; src->next(j);) {
    }
  });
}
}  // namespace

TEST_CASE("Workload.JobLimit.stream_the_job_past_k_max_jobs_per_run_is_refused_where_the_workload_is_named") {
  auto src = with_job_limit(std::make_unique<Endless>(), "s.yaml", 4, "workload");
  JobSpec j;
  std::uint64_t n = 0;
  const auto e = input_error_of([&] {
    while (src->next(j)) ++n;
  });
  CHECK(n == kMaxJobsPerRun);
  CHECK(e.file() == "s.yaml");
  CHECK(e.line() == 4);
  CHECK(says(e, "the workload has more than the 10000000 jobs a run may have"));
  CHECK_NOTHROW(check_job_count(kMaxJobsPerRun, "jobs", "", 0, ""));
}

TEST_CASE("Workload.JobLimit.counts_every_count_written_in_a_scenario_at_its_line") {
  // R31b: the generator's count.
  auto e = scenario_error("  generate: {jobs: 4000000000, arrival_rate_per_hour: 40000000}\n");
  CHECK(e.line() == 4);
  CHECK(e.field() == "workload.generate.jobs");
  CHECK(says(e, "4000000000 jobs is more than the 10000000 jobs a run may have"));
  // The generator's services and cron entries add to its jobs.
  e = scenario_error("  generate: {jobs: 10, services: 10000, service_instances_max: 1000}\n");
  CHECK(says(e, "are more than the 10000000 jobs a run may have"));
  e = scenario_error("  generate: {jobs: 1000, arrival_rate_per_hour: 0.01, cron_entries: 100, cron_period_s: 1}\n");
  CHECK(says(e, "cron occurrences"));
  // R29 in a scenario: a count Rn, and an unbounded schedule up to until_s.
  e = scenario_error("  cron:\n    - {name: c, schedule: R4000000000/2020-01-01T00:00:00Z/PT1S, duration_s: 60}\n");
  CHECK(e.line() == 5);
  CHECK(e.field() == "workload.cron.0.schedule");
  CHECK(says(e, "4000000000 occurrences is more than the 10000000 jobs a run may have"));
  e = scenario_error("  until_s: 3000000000\n  cron:\n    - {name: c, schedule: R/2020-01-01T00:00:00Z/PT1S, duration_s: 60}\n");
  CHECK(says(e, "3000000001 occurrences before workload.until_s"));
  // Services: instances, and the instances scale steps add.
  e = scenario_error("  until_s: 100\n  services:\n    - {name: web, gpus: 1, instances: 20000000}\n");
  CHECK(e.line() == 6);
  CHECK(says(e, "20000000 instances is more than the 10000000 jobs a run may have"));
  std::string steps;
  for (int i = 0; i < 30; ++i) steps += "{at_s: " + std::to_string(i + 1) + ", instances: " + (i % 2 ? "0" : "1000000") + "}, ";
  e = scenario_error("  until_s: 100\n  services:\n    - {name: web, gpus: 1, instances: 0, scale: [" + steps + "]}\n");
  CHECK(says(e, "11000000 instances with the scale steps up to here"));
  // Counts within the bound load.
  ScratchDir dir("job-limit-ok");
  const auto ok = (dir.path / "ok.yaml").string();
  std::ofstream(ok) << "name: ok\ncluster: " << fixture("clusters/tiny.yaml")
                    << "\nworkload:\n  cron:\n    - {name: c, schedule: R10000000/2020-01-01T00:00:00Z/PT1S, duration_s: 1}\n";
  CHECK_NOTHROW(config::load_scenario(ok));
}

TEST_CASE("Workload.JobLimit.trace_rows_a_cron_rows_count_and_a_service_rows_instances_at_the_row") {
  ScratchDir dir("job-limit-trace");
  const auto path = (dir.path / "t.csv").string();
  std::ofstream(path) << "id,submit_s,duration_s,tasks,gpus_per_task,kind,schedule\n"
                         "0,0,60,1,1,cron,R4000000000/2020-01-01T00:00:00Z/PT1S\n";
  auto e = input_error_of([&] {
    auto src = open_native_csv(path, {});
    for (JobSpec j; src->next(j);) {
    }
  });
  CHECK(e.file() == path);
  CHECK(e.line() == 2);
  CHECK(e.field() == "schedule");
  CHECK(says(e, "4000000000 occurrences is more than the 10000000 jobs a run may have"));
  std::ofstream(path) << "id,submit_s,duration_s,tasks,gpus_per_task,kind,instances\n0,0,60,1,1,service,10000001\n";
  e = input_error_of([&] {
    auto src = open_native_csv(path, {});
    for (JobSpec j; src->next(j);) {
    }
  });
  CHECK(e.line() == 2);
  CHECK(says(e, "10000001 instances is more than the 10000000 jobs a run may have"));
}
