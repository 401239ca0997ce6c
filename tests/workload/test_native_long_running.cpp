// Services and cron jobs in a native CSV trace (traces/README.md): a service row stands for its
// instances, a cron row with a schedule for its occurrences, merged in submit order; the
// columns that only some kinds may have are refused elsewhere at their line; `trace generate`
// mixes services and cron entries in, the same way for the same seed.
#include <doctest/doctest.h>

#include <map>
#include <sstream>

#include "util/error.h"
#include "workload/generator.h"
#include "workload/native_csv.h"

using namespace schedlab;
using namespace schedlab::workload;

namespace {
std::string native(const std::string& name) { return std::string(SCHEDLAB_SOURCE_DIR) + "/tests/fixtures/native/" + name; }

// "trace id or number@seconds" per job, in the order handed out.
std::vector<std::string> order_of(JobSource& src, std::vector<JobSpec>* jobs = nullptr) {
  std::vector<std::string> out;
  JobSpec j;
  while (src.next(j)) {
    const std::string id(src.strings().str(j.trace_id));
    out.push_back((id.empty() ? std::to_string(j.trace_number) : id) + "@" + std::to_string(j.submit / engine::kMicrosPerSecond));
    if (jobs) jobs->push_back(j);
  }
  return out;
}

std::string error_of(const std::string& name) {
  try {
    auto src = open_native_csv(native(name), {});
    order_of(*src);
  } catch (const util::InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("Workload.NativeLongRunning.service_rows_give_instances_and_cron_rows_their_occurrences") {
  auto src = open_native_csv(native("services_cron.csv"), {});
  std::vector<JobSpec> jobs;
  // Row 2's schedule puts occurrences at its submit (30 s) and every minute after, 3 in all;
  // a bounded schedule outlasts the rows.
  CHECK(order_of(*src, &jobs) ==
        std::vector<std::string>{"0@0", "1.0@0", "1.1@0", "1.2@0", "etl#0@30", "3@60", "etl#1@90", "4@100", "etl#2@150"});
  REQUIRE(jobs.size() == 9);
  for (std::size_t i = 0; i < jobs.size(); ++i) CHECK(jobs[i].id == i);  // numbered as handed out
  CHECK(jobs[1].kind == JobKind::service);
  CHECK(jobs[1].duration == 500 * engine::kMicrosPerSecond);  // wanted over [submit, submit + duration)
  CHECK_FALSE(jobs[1].preemptible);
  CHECK(jobs[5].preemptible);
  CHECK(src->strings().str(jobs[1].group) == "1");  // no group column value: the row's id
  CHECK(src->strings().str(jobs[4].group) == "etl");
  CHECK(src->strings().str(jobs[7].group) == "report");
  CHECK(jobs[6].duration == 20 * engine::kMicrosPerSecond);
  CHECK(jobs[0].group == kNoLabel);
}

TEST_CASE("Workload.NativeLongRunning.columns_of_other_kinds_are_refused_at_their_line") {
  CHECK(error_of("bad/instances_on_batch.csv") ==
        native("bad/instances_on_batch.csv") + ":2: instances: only a row of kind service has instances");
  CHECK(error_of("bad/schedule_on_service.csv") ==
        native("bad/schedule_on_service.csv") + ":2: schedule: only a row of kind cron has a schedule");
  CHECK(error_of("bad/group_on_batch.csv") ==
        native("bad/group_on_batch.csv") + ":2: group: only a row of kind service or cron has a group");
  const auto period = error_of("bad/bad_period.csv");
  CHECK(period.starts_with(native("bad/bad_period.csv") + ":2: schedule: "));
  CHECK(period.find("period") != std::string::npos);
}

TEST_CASE("Workload.NativeLongRunning.written_rows_keep_their_group_and_read_back_as_single_jobs") {
  auto src = open_native_csv(native("services_cron.csv"), {});
  std::ostringstream out;
  write_native_header(out);
  JobSpec j;
  while (src->next(j)) write_native_row(out, j, src->strings());
  const std::string text = out.str();
  CHECK(text.find(",service,") != std::string::npos);
  CHECK(text.find(",0,1,,,\n") != std::string::npos);  // the service's instances: not preemptible, group 1
  CHECK(text.find(",1,etl,,,\n") != std::string::npos);
}

TEST_CASE("Workload.NativeLongRunning.the_generator_mixes_in_services_and_cron_entries") {
  GeneratorConfig c;
  c.jobs = 200;
  c.arrival_rate_per_hour = 20;  // about 10 hours
  c.services = 2;
  c.service_instances_max = 3;
  c.cron_entries = 1;
  c.cron_period_s = 3600;
  auto count = [&](std::uint64_t seed) {
    auto src = make_generator(c, seed);
    std::map<std::string, int> by_group;
    std::vector<std::string> order;
    JobSpec j;
    engine::Time last = 0;
    std::uint64_t n = 0;
    while (src->next(j)) {
      CHECK(j.submit >= last);  // submit order
      last = j.submit;
      CHECK(j.trace_number == n++);
      if (j.kind != JobKind::batch) ++by_group[std::string(src->strings().str(j.group))];
      order.push_back(std::to_string(j.submit));
    }
    return std::make_pair(by_group, order);
  };
  const auto [groups, order] = count(7);
  REQUIRE(groups.size() == 3);
  CHECK((groups.at("svc0") >= 1 && groups.at("svc0") <= 3));
  CHECK((groups.at("svc1") >= 1 && groups.at("svc1") <= 3));
  // Hourly over the trace's ~10 hours: one job per hour up to the last batch submit.
  CHECK((groups.at("cron0") >= 8 && groups.at("cron0") <= 12));
  CHECK(count(7).second == order);  // the same seed, the same trace
}
