// A trace merged with services and cron entries (workload/mixed_source.h): instance spans from
// scale steps, submit order with its tie rule, and unbounded schedules ending with the trace.
#include <doctest/doctest.h>

#include <memory>

#include "support/submit_times.h"
#include "workload/chronos_schedule.h"
#include "workload/mixed_source.h"

using namespace schedlab;
using namespace schedlab::workload;

namespace {

constexpr engine::Time s(std::int64_t seconds) { return seconds * engine::kMicrosPerSecond; }

CronSpec every(const std::string& name, const std::string& schedule) {
  CronSpec c;
  c.name = name;
  c.duration = s(10);
  c.schedule_text = schedule;
  c.schedule = parse_chronos_schedule(schedule);
  return c;
}

// "name@seconds" for each job, in the order the source hands them out.
std::vector<std::string> drain(MixedSource& m) {
  std::vector<std::string> out;
  JobSpec j;
  while (m.next(j)) out.push_back(std::string(m.strings().str(j.trace_id)) + "@" + std::to_string(j.submit / s(1)));
  return out;
}

}  // namespace

TEST_CASE("Workload.MixedSource.scale_steps_give_each_instance_the_span_it_is_wanted") {
  ServiceSpec web;
  web.name = "web";
  web.instances = 2;
  web.start = s(10);
  web.scale = {{s(100), 3}, {s(200), 1}};
  web.stop = s(300);
  const auto spans = instance_spans(web);
  // Index 0: 10-300; index 1: 10-200; index 2: 100-200 (scale-downs retire the highest).
  REQUIRE(spans.size() == 3);
  CHECK(spans[0].index == 0);
  CHECK(spans[0].from == s(10));
  CHECK(spans[0].to == s(300));
  CHECK(spans[1].index == 1);
  CHECK(spans[1].to == s(200));
  CHECK(spans[2].index == 2);
  CHECK(spans[2].from == s(100));
  CHECK(spans[2].to == s(200));
}

TEST_CASE("Workload.MixedSource.at_one_instant_the_trace_comes_first_then_services_then_cron_in_list_order") {
  LongRunningWork w;
  w.epoch_us = parse_iso_datetime_us("2026-01-05T00:00:00Z");
  ServiceSpec web;
  web.name = "web";
  web.start = s(60);
  web.stop = s(100);
  w.services = {web};
  w.cron = {every("b", "R2/2026-01-05T00:00:00Z/PT1M"), every("a", "R2/2026-01-05T00:00:00Z/PT1M")};
  MixedSource m(std::make_unique<testing::SubmitTimes>(std::vector<std::int64_t>{0, 60, 90}), w);
  CHECK(drain(m) == std::vector<std::string>{"t0@0", "b#0@0", "a#0@0", "t1@60", "web.0@60", "b#1@60", "a#1@60", "t2@90"});
}

TEST_CASE("Workload.MixedSource.a_service_without_a_stop_is_one_job_without_end") {
  LongRunningWork w;
  ServiceSpec web;
  web.name = "web";
  web.instances = 1;
  w.services = {web};
  MixedSource m(nullptr, w);
  JobSpec j;
  REQUIRE(m.next(j));
  CHECK(j.kind == JobKind::service);
  CHECK(j.duration == engine::kTimeMax);
  CHECK(m.strings().str(j.group) == "web");
  CHECK_FALSE(m.next(j));
}

TEST_CASE("Workload.MixedSource.an_unbounded_schedule_ends_with_the_traces_last_submit") {
  LongRunningWork w;
  w.epoch_us = parse_iso_datetime_us("2026-01-05T00:00:00Z");
  w.cron = {every("etl", "R/2026-01-05T00:00:00Z/PT1M")};
  MixedSource m(std::make_unique<testing::SubmitTimes>(std::vector<std::int64_t>{30, 150}), w);
  CHECK(drain(m) == std::vector<std::string>{"etl#0@0", "t0@30", "etl#1@60", "etl#2@120", "t1@150"});
}

TEST_CASE("Workload.MixedSource.occurrences_before_the_epoch_never_happen_and_until_ends_the_rest") {
  LongRunningWork w;
  w.epoch_us = parse_iso_datetime_us("2026-01-05T00:00:00Z");
  w.until = s(150);
  // Every minute from four hours before the epoch, and monthly (a calendar period) from a year before.
  w.cron = {every("minutely", "R/2026-01-04T20:00:00Z/PT1M"), every("monthly", "R/2025-01-05T00:00:00Z/P1M")};
  MixedSource m(nullptr, w);
  // minutely's k counts from its start: 4 h = 240 periods before the epoch.
  CHECK(drain(m) == std::vector<std::string>{"minutely#240@0", "monthly#12@0", "minutely#241@60", "minutely#242@120"});
}
