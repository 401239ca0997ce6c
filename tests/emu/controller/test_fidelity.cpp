// fidelity.json: the emulated and simulated runs compared job by job, jobs submitted over the
// API reported apart, and a comparison that cannot be trusted saying so.
#include <doctest/doctest.h>

#include <sstream>

#include "emu/controller/fidelity.h"
#include "sim/run_view.h"

namespace schedlab::emu {
namespace {

metrics::JobRecord finished(std::uint64_t trace_number, double submit_s, double end_s) {
  metrics::JobRecord r;
  r.trace_number = trace_number;
  r.submit = engine::from_seconds(submit_s);
  r.start = r.submit;
  r.end = engine::from_seconds(end_s);
  r.state = sched::JobState::finished;
  return r;
}

// Two trace jobs in both runs (JCT 100 and 200 s simulated, 110 and 220 emulated) and one API job.
Fidelity two_jobs_and_an_api_job() {
  RunRecords emu, sim;
  emu.jobs = {finished(0, 0, 110), finished(sim::kSubmittedFromOutside, 5, 55), finished(1, 10, 230)};
  sim.jobs = {finished(0, 0, 100), finished(1, 10, 210)};
  emu.summary.jct_mean_s = (110 + 50 + 220) / 3.0;  // the emulated summary counts the API job
  sim.summary.jct_mean_s = 150;
  return compare_runs(emu, sim);
}

}  // namespace

TEST_CASE("Emu.Fidelity.api_jobs_are_reported_apart_and_the_mean_is_over_the_compared_jobs") {
  const Fidelity f = two_jobs_and_an_api_job();
  CHECK(f.compared == 2);
  CHECK(f.api_jobs == 1);
  CHECK(f.api_finished == 1);
  CHECK(f.api_jct_mean_s == doctest::Approx(50));
  CHECK(f.emu_jct_mean_compared_s == doctest::Approx(165));
  CHECK(f.sim_jct_mean_compared_s == doctest::Approx(150));
  CHECK(f.mean_jct_error == doctest::Approx(0.1));
  const std::string table = format_fidelity_table(f);
  CHECK(table.find("165.0") != std::string::npos);  // the table's mean JCT row: compared jobs only
  CHECK(table.find("jobs submitted over the API (no simulated twin, not compared): 1, 1 finished, mean JCT 50.0 s") !=
        std::string::npos);
}

TEST_CASE("Emu.Fidelity.a_healthy_emulation_is_trustworthy") {
  Fidelity f = two_jobs_and_an_api_job();
  EmulationHealth h;
  h.speedup = 100;
  h.clock_lag_p99_ms = 10;  // 1 s of trace time: under 1% of the 150 s mean simulated JCT (1.5 s)
  judge_fidelity(f, h);
  CHECK(f.trustworthy);
  CHECK(f.untrustworthy_because.empty());
  std::ostringstream json;
  write_fidelity_json(json, f);
  CHECK(json.str().find("\"trustworthy\": true") != std::string::npos);
}

TEST_CASE("Emu.Fidelity.each_reason_for_distrust_is_named") {
  struct Row {
    const char* what;
    EmulationHealth h;
    std::uint64_t failures;
    const char* says;
  };
  const Row rows[] = {
      {"clock lag", {100, 20, 0, 0, 0, 0}, 0, "clock lag p99 20.0 ms of wall time is 2.0 s of trace time"},
      {"re-registrations", {100, 1, 4, 0, 0, 0}, 0, "agents registered again 4 time(s) (the failure plan killed 0)"},
      {"restarts", {100, 1, 1, 2, 1, 0}, 0, "local agents were restarted 2 time(s) (the failure plan killed 1)"},
      {"unplanned failures", {100, 1, 0, 0, 0, 0}, 3, "3 job failure(s) that no failure plan asked for"},
  };
  for (const auto& r : rows) {
    CAPTURE(r.what);
    Fidelity f = two_jobs_and_an_api_job();
    f.emulated.failures = r.failures;
    judge_fidelity(f, r.h);
    CHECK_FALSE(f.trustworthy);
    REQUIRE(f.untrustworthy_because.size() == 1);
    CHECK(f.untrustworthy_because[0].find(r.says) != std::string::npos);
    CHECK(format_fidelity_table(f).find("NOT TRUSTWORTHY") != std::string::npos);
  }
  // Planned kills account for the agents that came back and for the failures they caused.
  Fidelity f = two_jobs_and_an_api_job();
  f.emulated.failures = 2;
  judge_fidelity(f, {100, 1, 1, 1, 1, 0});
  CHECK(f.trustworthy);
}

}  // namespace schedlab::emu

namespace schedlab::emu {

TEST_CASE("Emu.Fidelity.a_figure_with_nothing_to_measure_is_a_dash") {
  RunRecords emu, sim;
  emu.summary.gpu_utilization = metrics::kNoValue;  // an empty measurement window
  sim.summary.gpu_utilization = metrics::kNoValue;
  const Fidelity f = compare_runs(emu, sim);  // no job finished in both
  const std::string table = format_fidelity_table(f);
  CHECK(table.find("nan") == std::string::npos);
  CHECK(table.find("mean JCT (s)                         -             -         -") != std::string::npos);
}

}  // namespace schedlab::emu
