// The services and cron figures from a run's events (metrics/long_running_observer.h): a
// scenario of events in, the figures out, worked by hand.
#include <doctest/doctest.h>

#include <string>

#include "metrics/long_running_observer.h"

using namespace schedlab;
using metrics::LifeStep;
using metrics::LongRunningStep;

namespace {

constexpr engine::Time s(double seconds) { return static_cast<engine::Time>(seconds * 1e6); }

// A run's events, told to one observer.
struct Events {
  workload::StringPool strings;
  workload::LongRunningWork planned;
  sched::JobLife running;  // the life an event points at: only its state is read

  workload::JobSpec job(workload::JobId id, workload::JobKind kind, const std::string& group, double submit_s) {
    workload::JobSpec j;
    j.id = id;
    j.kind = kind;
    j.group = group.empty() ? workload::kNoLabel : strings.intern(group);
    j.submit = s(submit_s);
    return j;
  }
  static void life(metrics::RunObserver& o, LifeStep step, const workload::JobSpec& j, double at_s,
                   const sched::JobLife& l, sched::StopCause cause = sched::StopCause::preempted) {
    metrics::LifeEvent e{step, s(at_s), &j, &l, cause};
    o.on_life(e);
  }
  static void step(metrics::RunObserver& o, LongRunningStep st, const workload::JobSpec& j, double at_s,
                   bool overlapping = false) {
    o.on_long_running({st, s(at_s), &j, overlapping});
  }
};

workload::ServiceSpec service_named(const std::string& name) {
  workload::ServiceSpec sp;
  sp.name = name;
  return sp;
}
workload::CronSpec cron_named(const std::string& name) {
  workload::CronSpec c;
  c.name = name;
  return c;
}

}  // namespace

TEST_CASE("Metrics.LongRunningObserver.service_availability_instances_restarts_and_failures") {
  Events ev;
  ev.planned.services = {service_named("web")};
  metrics::LongRunningObserver o(ev.planned, ev.strings);
  const auto a = ev.job(1, workload::JobKind::service, "web", 0);
  const auto b = ev.job(2, workload::JobKind::service, "web", 0);
  const auto refused = ev.job(3, workload::JobKind::service, "web", 30);
  sched::JobLife saving;
  saving.state = sched::JobState::stopping;

  o.on_submit(a, s(0));  // wanted 1, up 0
  o.on_submit(b, s(0));  // wanted 2
  Events::life(o, LifeStep::start, a, 10, ev.running);    // up 1
  Events::life(o, LifeStep::start, b, 20, ev.running);    // up 2: all up from 20
  o.on_drop(refused, s(30), "never fits");                // wanted 3 for an instant
  Events::life(o, LifeStep::stop, b, 40, ev.running, sched::StopCause::preempted);  // up 1, no failure
  Events::life(o, LifeStep::restart, b, 45, ev.running);  // up 2, a restart
  Events::life(o, LifeStep::stop, b, 50, ev.running, sched::StopCause::host_failed);  // up 1, a failure
  // A failure that cuts a save short stops the job a second time: it was down already.
  Events::life(o, LifeStep::stop, b, 52, saving, sched::StopCause::host_failed);
  Events::life(o, LifeStep::restart, b, 60, ev.running);  // up 2, a restart
  Events::life(o, LifeStep::stop, a, 70, ev.running, sched::StopCause::killed);  // up 1, killed: no failure
  Events::life(o, LifeStep::fail, a, 70, ev.running);     // wanted 1: all up again
  Events::step(o, LongRunningStep::running_instance_retired, b, 90);  // up 0
  Events::life(o, LifeStep::finish, b, 90, ev.running);   // wanted 0: no longer counts
  o.on_finish(s(100));

  const auto f = o.services();
  REQUIRE(f.size() == 1);
  CHECK(f[0].name == "web");
  // Wanted over [0, 90): all up over [20, 40), [45, 50) and [60, 90): 55 of 90 s.
  CHECK(f[0].availability == doctest::Approx(55.0 / 90.0));
  CHECK(f[0].instances_max == 3);
  CHECK(f[0].restarts == 2);
  CHECK(f[0].failures == 1);
  CHECK(o.cron().empty());
}

TEST_CASE("Metrics.LongRunningObserver.cron_occurrences_delays_skips_overlaps_and_drops") {
  Events ev;
  ev.planned.cron = {cron_named("nightly")};
  metrics::LongRunningObserver o(ev.planned, ev.strings);
  const auto first = ev.job(10, workload::JobKind::cron, "nightly", 0);
  const auto skipped = ev.job(11, workload::JobKind::cron, "nightly", 50);
  const auto refused = ev.job(12, workload::JobKind::cron, "nightly", 60);
  const auto late = ev.job(13, workload::JobKind::cron, "nightly", 70);

  Events::step(o, LongRunningStep::cron_occurrence, first, 0, false);
  o.on_submit(first, s(0));
  Events::life(o, LifeStep::start, first, 5, ev.running);  // 5 s late
  Events::step(o, LongRunningStep::cron_occurrence, skipped, 50, true);
  Events::step(o, LongRunningStep::cron_skipped, skipped, 50);
  o.on_drop(skipped, s(50), "skipped: the previous occurrence has not ended");  // the skip's, not a drop
  Events::life(o, LifeStep::finish, first, 55, ev.running);
  Events::step(o, LongRunningStep::cron_occurrence, refused, 60, false);
  o.on_drop(refused, s(60), "never fits");  // a drop
  Events::step(o, LongRunningStep::cron_occurrence, late, 70, false);
  o.on_submit(late, s(70));
  Events::life(o, LifeStep::start, late, 72, ev.running);    // 2 s late
  Events::life(o, LifeStep::stop, late, 80, ev.running, sched::StopCause::host_failed);
  Events::life(o, LifeStep::restart, late, 90, ev.running);  // not a second start
  o.on_finish(s(100));

  const auto c = o.cron();
  REQUIRE(c.size() == 1);
  CHECK(c[0].name == "nightly");
  CHECK(c[0].occurrences == 4);
  CHECK(c[0].started == 2);
  CHECK(c[0].skipped == 1);
  CHECK(c[0].overlapping == 1);
  CHECK(c[0].dropped == 1);
  CHECK(c[0].delay_mean_s == doctest::Approx(3.5));
  CHECK(c[0].delay_max_s == doctest::Approx(5.0));
  CHECK(o.services().empty());
}

TEST_CASE("Metrics.LongRunningObserver.planned_entries_first_then_a_traces_groups_as_they_appear") {
  Events ev;
  ev.planned.services = {service_named("web")};
  ev.planned.cron = {cron_named("nightly"), cron_named("weekly")};
  metrics::LongRunningObserver o(ev.planned, ev.strings);
  // A trace's service and cron groups arrive before any planned job; a row without a group,
  // and a batch job named like a service, count nowhere.
  const auto trace_service = ev.job(1, workload::JobKind::service, "api", 0);
  const auto trace_cron = ev.job(2, workload::JobKind::cron, "backup", 0);
  const auto ungrouped = ev.job(3, workload::JobKind::service, "", 0);
  const auto batch = ev.job(4, workload::JobKind::batch, "web", 0);
  const auto planned_service = ev.job(5, workload::JobKind::service, "web", 10);
  o.on_submit(trace_service, s(0));
  Events::step(o, LongRunningStep::cron_occurrence, trace_cron, 0);
  o.on_submit(trace_cron, s(0));
  o.on_submit(ungrouped, s(0));
  o.on_submit(batch, s(0));
  Events::life(o, LifeStep::start, batch, 1, ev.running);
  o.on_submit(planned_service, s(10));
  Events::life(o, LifeStep::start, planned_service, 20, ev.running);
  Events::life(o, LifeStep::start, trace_service, 40, ev.running);
  o.on_finish(s(100));

  const auto f = o.services();
  REQUIRE(f.size() == 2);
  CHECK(f[0].name == "web");
  CHECK(f[0].availability == doctest::Approx(80.0 / 90.0));  // wanted from 10, up from 20
  CHECK(f[1].name == "api");
  CHECK(f[1].availability == doctest::Approx(60.0 / 100.0));  // wanted from 0, up from 40
  const auto c = o.cron();
  REQUIRE(c.size() == 3);
  CHECK(c[0].name == "nightly");
  CHECK(c[1].name == "weekly");
  CHECK(c[1].occurrences == 0);
  CHECK(c[2].name == "backup");
  CHECK(c[2].occurrences == 1);
}
