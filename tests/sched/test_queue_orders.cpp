// Queue orders whose keys change as jobs run: sjf, srtf, fair-share, las, gittins and ftf.
// Each has a table of small situations (a job's life as a test ledger states it) and the
// key or order expected; then short simulations where the order shows without preemption;
// then the errors their args give.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "../support/sim_harness.h"
#include "sched/registry.h"
#include "sched/scheduler.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::testing;
using sched::JobLife;
using sched::OrderKey;

namespace {

// A ledger whose lives the test writes. Work progresses at the traced speed while running.
class TestLedger final : public sched::JobLedger {
 public:
  std::map<workload::JobId, JobLife> lives;
  std::map<workload::Label, std::uint64_t> user_milli;
  std::uint64_t active = 1;

  const JobLife& life(workload::JobId id) const override {
    auto it = lives.find(id);
    return it == lives.end() ? blank_ : it->second;
  }
  double work_done(workload::JobId id, engine::Time now) const override {
    const auto& l = life(id);
    return l.work_done + (l.run_start >= 0 && now > l.run_start ? static_cast<double>(now - l.run_start) : 0.0);
  }
  std::uint64_t user_held_milli(workload::Label user) const override {
    auto it = user_milli.find(user);
    return it == user_milli.end() ? 0 : it->second;
  }
  std::uint64_t active_jobs() const override { return active; }
  std::uint64_t active_users() const override { return user_milli.size(); }
  void held_slots(workload::JobId, std::vector<cluster::TaskSlot>& out) const override { out.clear(); }

 private:
  JobLife blank_;
};

workload::JobSpec job(workload::JobId id, double submit_s, double duration_s, std::uint32_t gpus = 1) {
  workload::JobSpec s;
  s.id = id;
  s.submit = sec(submit_s);
  s.duration = sec(duration_s);
  s.gpus_per_task = gpus;
  return s;
}

// A job running since `start_s`, with `attained_s` over earlier runs, on `gpus` GPUs.
JobLife running_life(double start_s, double attained_s = 0, double gpus = 1) {
  JobLife l;
  l.state = sched::JobState::running;
  l.run_start = sec(start_s);
  l.attained = sec(attained_s);
  l.attained_gpu_us = static_cast<double>(sec(attained_s)) * gpus;
  l.held_milli = static_cast<std::uint64_t>(gpus * 1000);
  return l;
}

// A job waiting since `since_s` after `attained_s` of runs on `gpus` GPUs.
JobLife waiting_life(double since_s, double attained_s, double gpus = 1) {
  JobLife l;
  l.pending_since = sec(since_s);
  l.attained = sec(attained_s);
  l.attained_gpu_us = static_cast<double>(sec(attained_s)) * gpus;
  return l;
}

std::unique_ptr<sched::QueueOrder> order(const std::string& name, const sched::PartArgs& args = {}) {
  return sched::builtin_parts().queues.make(name, args);
}

// Ids of `jobs` sorted by key at `now` (all waiting), then id: the queue's order.
std::vector<workload::JobId> queue_order(const sched::QueueOrder& q, const std::vector<workload::JobSpec>& jobs,
                                         const TestLedger& ledger, engine::Time now) {
  std::vector<std::pair<OrderKey, workload::JobId>> keyed;
  for (const auto& j : jobs) keyed.emplace_back(q.key(j, ledger, false, now), j.id);
  std::sort(keyed.begin(), keyed.end());
  std::vector<workload::JobId> out;
  for (const auto& k : keyed) out.push_back(k.second);
  return out;
}

}  // namespace

// --- tables ------------------------------------------------------------------------------

TEST_CASE("Sched.Queue.sjf_orders_by_estimate_else_duration_then_submit") {
  auto q = order("sjf");
  TestLedger ledger;
  struct Row {
    double submit_s, duration_s, estimate_s, key_s;
  };
  const Row rows[] = {
      {0, 100, 0, 100},   // no estimate: the traced duration
      {1, 100, 30, 30},   // the user's estimate wins over the duration
      {2, 10, 500, 500},  // even when it is longer (the user's word is what is known)
      {3, 30, 0, 30},     // ties with job 1 on length: the earlier submit goes first
  };
  std::vector<workload::JobSpec> jobs;
  for (std::size_t i = 0; i < std::size(rows); ++i) {
    auto j = job(static_cast<workload::JobId>(i), rows[i].submit_s, rows[i].duration_s);
    j.estimate = rows[i].estimate_s > 0 ? sec(rows[i].estimate_s) : 0;
    jobs.push_back(j);
    CAPTURE(i);
    CHECK(q->key(j, ledger, false, sec(5)) ==
          OrderKey{static_cast<double>(sec(rows[i].key_s)), static_cast<double>(j.submit)});
  }
  CHECK(queue_order(*q, jobs, ledger, sec(5)) == std::vector<workload::JobId>{1, 3, 0, 2});
  CHECK_FALSE(q->drifts_while_running());
  CHECK(q->next_change(jobs[0], ledger, true, sec(5)) == engine::kTimeMax);
}

TEST_CASE("Sched.Queue.srtf_orders_by_remaining_work_which_drifts_while_running") {
  auto q = order("srtf");
  CHECK(q->drifts_while_running());
  TestLedger ledger;
  // Job 0: 100 s of work, 30 s saved by an earlier run, running again since t=50.
  // Job 1: 60 s of work, never run. Job 2: unknown to the ledger (a scheduler used alone).
  auto j0 = job(0, 0, 100), j1 = job(1, 1, 60), j2 = job(2, 2, 45);
  ledger.lives[0] = running_life(50, 30);
  ledger.lives[0].work_total = static_cast<double>(sec(100));
  ledger.lives[0].work_done = static_cast<double>(sec(30));
  ledger.lives[1].work_total = static_cast<double>(sec(60));
  struct Row {
    double now_s;
    double left0_s;  // job 0's remaining work at now
  };
  for (const Row r : {Row{50, 70}, Row{60, 60}, Row{100, 20}, Row{130, 0}, Row{200, 0}}) {
    CAPTURE(r.now_s);
    CHECK(q->key(j0, ledger, true, sec(r.now_s)).primary == doctest::Approx(static_cast<double>(sec(r.left0_s))));
  }
  CHECK(q->key(j1, ledger, false, sec(80)).primary == static_cast<double>(sec(60)));
  CHECK(q->key(j2, ledger, false, sec(80)).primary == static_cast<double>(sec(45)));
  // At t=75 job 0 has 45 s left, tying job 2: the earlier submit (job 0) first; job 1 last.
  ledger.lives[0].run_start = sec(50);
  std::vector<std::pair<OrderKey, workload::JobId>> keyed{{q->key(j0, ledger, true, sec(75)), 0},
                                                          {q->key(j1, ledger, false, sec(75)), 1},
                                                          {q->key(j2, ledger, false, sec(75)), 2}};
  std::sort(keyed.begin(), keyed.end());
  CHECK(keyed[0].second == 0);
  CHECK(keyed[1].second == 2);
  CHECK(keyed[2].second == 1);
}

TEST_CASE("Sched.Queue.fair_share_puts_the_user_holding_least_first") {
  auto q = order("fair-share");
  CHECK(q->keyed_by_user());
  TestLedger ledger;
  ledger.user_milli = {{1, 4000}, {2, 500}, {3, 0}};
  auto a = job(0, 0, 10), b = job(1, 5, 10), c = job(2, 9, 10), d = job(3, 1, 10);
  a.user = 1, b.user = 2, c.user = 3, d.user = 3;
  CHECK(q->key(a, ledger, false, 0) == OrderKey{4000, static_cast<double>(sec(0))});
  CHECK(q->key(b, ledger, false, 0) == OrderKey{500, static_cast<double>(sec(5))});
  // User 3 holds nothing: both its jobs first, by submit; then user 2's half GPU; then user 1.
  CHECK(queue_order(*q, {a, b, c, d}, ledger, 0) == std::vector<workload::JobId>{3, 2, 1, 0});
  // User 3 starts a 2-GPU job (the ledger shows it): user 2 now goes first.
  ledger.user_milli[3] = 2000;
  CHECK(queue_order(*q, {a, b, c, d}, ledger, 0) == std::vector<workload::JobId>{1, 3, 2, 0});
}

TEST_CASE("Sched.Queue.las_table_of_queues_entry_instants_and_timers") {
  // Two thresholds (10 s, 20 s of wall time): three queues. Keys are (2 x queue + waiting,
  // the instant the job entered its queue).
  auto q = order("las", {{"thresholds", "[10, 20]"}, {"service", "time"}});
  TestLedger ledger;
  auto j = job(0, 5, 100);
  auto key = [](double primary, double entered_s) { return OrderKey{primary, static_cast<double>(sec(entered_s))}; };

  // Submitted at 5 s: top queue, waiting, entered at its submit; no timer while it waits.
  CHECK(q->key(j, ledger, false, sec(5)) == key(1, 5));
  CHECK(q->next_change(j, ledger, false, sec(5)) == engine::kTimeMax);
  // Just started at 100 s: the scheduler rekeys before the simulation records the start
  // (run_start still -1): its run is taken to start now. Running jobs lead their queue.
  CHECK(q->key(j, ledger, true, sec(100)) == key(0, 5));
  CHECK(q->next_change(j, ledger, true, sec(100)) == sec(110));
  ledger.lives[0] = running_life(100);
  CHECK(q->key(j, ledger, true, sec(105)) == key(0, 5));
  CHECK(q->next_change(j, ledger, true, sec(105)) == sec(110));
  // The timer at exactly 110 s: demoted to queue 1, entered at 110 s; next timer at 120 s.
  CHECK(q->key(j, ledger, true, sec(110)) == key(2, 110));
  CHECK(q->next_change(j, ledger, true, sec(110)) == sec(120));
  // Preempted at 115 s: it waits in queue 1, keeping its place (entered at 110 s, not 115 s),
  // ahead of any job demoted into queue 1 later.
  ledger.lives[0] = waiting_life(115, 15);
  CHECK(q->key(j, ledger, false, sec(115)) == key(3, 110));
  CHECK(q->next_change(j, ledger, false, sec(115)) == engine::kTimeMax);  // no promotion asked for
  // Restarted at 200 s with 15 s attained: it reaches 20 s at 205 s, and the key computed
  // late (at 230 s, by a stop) still says it entered queue 2 at 205 s.
  ledger.lives[0] = running_life(200, 15);
  CHECK(q->key(j, ledger, true, sec(200)) == key(2, 110));
  CHECK(q->next_change(j, ledger, true, sec(200)) == sec(205));
  CHECK(q->key(j, ledger, true, sec(230)) == key(4, 205));
  CHECK(q->next_change(j, ledger, true, sec(230)) == engine::kTimeMax);  // bottom queue
}

TEST_CASE("Sched.Queue.las_order_list_appends_at_tails_and_moves_waiting_behind_running") {
  // order: list (the Tiresias simulator's): keys are (queue, place in its list). Jobs that reach
  // a tail at one instant share a place (the job id orders them); places only grow.
  auto q = order("las", {{"thresholds", "[10, 20]"}, {"service", "time"}, {"order", "list"}});
  REQUIRE(q->moves_waiting_behind_running());
  TestLedger ledger;
  auto a = job(0, 5, 100), b = job(1, 5, 100), c = job(2, 6, 100), d = job(3, 15, 100);
  CHECK(q->key(a, ledger, false, sec(5)) == OrderKey{0, 1});
  CHECK(q->key(b, ledger, false, sec(5)) == OrderKey{0, 1});
  CHECK(q->key(c, ledger, false, sec(6)) == OrderKey{0, 2});
  // Running or not, a job keeps its place: no running-first split.
  ledger.lives[0] = running_life(5);
  CHECK(q->key(a, ledger, true, sec(5)) == OrderKey{0, 1});
  CHECK(q->next_change(a, ledger, true, sec(5)) == sec(15));
  // Demoted at 15 s: the tail of queue 1, running.
  CHECK(q->key(a, ledger, true, sec(15)) == OrderKey{1, 3});
  // After the pass, the waiting jobs in queue order (b, then c) get places behind every place
  // given so far; a job arriving at the same instant goes behind them.
  CHECK(q->behind_running(b, OrderKey{0, 1}) == OrderKey{0, 4});
  CHECK(q->behind_running(c, OrderKey{0, 2}) == OrderKey{0, 5});
  CHECK(q->key(d, ledger, false, sec(15)) == OrderKey{0, 6});
  CHECK(q->key(b, ledger, false, sec(16)) == OrderKey{0, 4});
  // The default order has no list to keep.
  CHECK_FALSE(order("las")->moves_waiting_behind_running());
}

TEST_CASE("Sched.Queue.las_order_arrival_keeps_the_list_without_moving_waiting_jobs_behind_running") {
  // order: arrival (the Pollux artifact's Tiresias): the same places at the tails as `list`, but
  // a job left waiting keeps its place, ahead of younger running jobs of its queue.
  auto q = order("las", {{"thresholds", "[10, 20]"}, {"service", "time"}, {"order", "arrival"}});
  CHECK_FALSE(q->moves_waiting_behind_running());
  TestLedger ledger;
  auto a = job(0, 5, 100), b = job(1, 6, 100);
  CHECK(q->key(a, ledger, false, sec(5)) == OrderKey{0, 1});
  CHECK(q->key(b, ledger, false, sec(6)) == OrderKey{0, 2});
  ledger.lives[1] = running_life(6);
  CHECK(q->key(b, ledger, true, sec(6)) == OrderKey{0, 2});  // b runs, a still waits ahead of it
  CHECK(q->key(a, ledger, false, sec(7)) == OrderKey{0, 1});
  ledger.lives[0] = running_life(5);
  CHECK(q->key(a, ledger, true, sec(15)) == OrderKey{1, 3});  // demoted at 15 s: the tail of queue 1
}

TEST_CASE("Sched.Queue.las_demote_at_tiresias_py2_looks_at_events_one_queue_at_a_time") {
  // The Tiresias simulator's dlas-gpu (D10): thresholds 10 and 20 GPU-s; a job on 4 GPUs truly
  // reaches 10 GPU-s at 2.5 s, but the simulator next looks at floor((10 - 0 wall s) / 4) = 2 s.
  auto q = order("las", {{"thresholds", "[10, 20]"}, {"demote_at", "tiresias-py2"}});
  REQUIRE(q->rekeys_running_at_events());
  CHECK_FALSE(order("las")->rekeys_running_at_events());
  TestLedger ledger;
  auto j = job(0, 0, 100, 4);
  auto key = [](double primary, double entered_s) { return OrderKey{primary, static_cast<double>(sec(entered_s))}; };
  // Just started (not yet in the ledger): top queue; the look at 2 s.
  CHECK(q->key(j, ledger, true, 0) == key(0, 0));
  CHECK(q->next_change(j, ledger, true, 0) == sec(2));
  ledger.lives[0] = running_life(0, 0, 4);
  // At 2 s it has 8 GPU-s: not demoted; the next look subtracts 2 wall s: floor(8 / 4) = 2 s on.
  CHECK(q->key(j, ledger, true, sec(2)) == key(0, 0));
  CHECK(q->next_change(j, ledger, true, sec(2)) == sec(4));
  // Looked at 3 s (another job's event): 12 GPU-s, demoted then, entered at 3 s.
  CHECK(q->key(j, ledger, true, sec(3)) == key(2, 3));
  CHECK(q->next_change(j, ledger, true, sec(3)) == sec(7));  // floor((20 - 3) / 4) = 4 s on
  // A job on 8 GPUs past both limits when first looked at moves one queue per look.
  auto k = job(1, 0, 100, 8);
  ledger.lives[1] = running_life(0, 0, 8);
  CHECK(q->key(k, ledger, true, sec(3)) == key(2, 3));
  CHECK(q->key(k, ledger, true, sec(4)) == key(4, 4));
  CHECK(q->next_change(k, ledger, true, sec(4)) == engine::kTimeMax);  // bottom queue
  // A job started at this very instant is not looked at before its run: it keeps its queue.
  auto m = job(2, 0, 100, 8);
  ledger.lives[2] = running_life(5, 2, 8);
  CHECK(q->key(m, ledger, true, sec(5)) == key(0, 0));
  // While it waits nothing is looked at: no timer.
  ledger.lives[2] = waiting_life(6, 3, 8);
  CHECK(q->next_change(m, ledger, false, sec(6)) == engine::kTimeMax);
}

TEST_CASE("Sched.Queue.las_promotes_a_starved_job_to_the_top_queue") {
  // promote_after 2: a job that has run 15 s and waits from 115 s is due at 145 s.
  auto q = order("las", {{"thresholds", "[10, 20]"}, {"service", "time"}, {"promote_after", "2"}});
  TestLedger ledger;
  auto j = job(0, 0, 100);
  auto key = [](double primary, double entered_s) { return OrderKey{primary, static_cast<double>(sec(entered_s))}; };
  CHECK(q->key(j, ledger, false, 0) == key(1, 0));
  ledger.lives[0] = running_life(0);
  CHECK(q->key(j, ledger, true, sec(10)) == key(2, 10));
  ledger.lives[0] = waiting_life(115, 15);
  CHECK(q->key(j, ledger, false, sec(115)) == key(3, 10));
  CHECK(q->next_change(j, ledger, false, sec(115)) == sec(145));
  CHECK(q->key(j, ledger, false, sec(144)) == key(3, 10));
  // The timer at 145 s: top queue, entered at 145 s; no further timer.
  CHECK(q->key(j, ledger, false, sec(145)) == key(1, 145));
  CHECK(q->next_change(j, ledger, false, sec(145)) == engine::kTimeMax);
  // Its service counts afresh from the promotion: restarted at 150 s, demoted at 160 s.
  ledger.lives[0] = running_life(150, 15);
  CHECK(q->key(j, ledger, true, sec(150)) == key(0, 145));
  CHECK(q->next_change(j, ledger, true, sec(150)) == sec(160));
  CHECK(q->key(j, ledger, true, sec(160)) == key(2, 160));
}

TEST_CASE("Sched.Queue.las_gpu_time_service_divides_by_the_gpus_held") {
  // Thresholds in GPU-seconds; a job on 4 GPUs reaches 10 GPU-s after 2.5 s.
  auto q = order("las", {{"thresholds", "[10, 20]"}});  // service: gpu-time is the default
  TestLedger ledger;
  auto j = job(0, 0, 100, 4);
  ledger.lives[0] = running_life(0, 0, 4);
  CHECK(q->next_change(j, ledger, true, 0) == sec(2.5));
  CHECK(q->key(j, ledger, true, sec(2.4)).primary == 0);
  CHECK(q->key(j, ledger, true, sec(2.5)) == OrderKey{2, static_cast<double>(sec(2.5))});
  CHECK(q->next_change(j, ledger, true, sec(2.5)) == sec(5));
  // Just started, not yet in the ledger: the GPUs it asked for (2 x 3 GPUs) set the rate.
  auto k = job(1, 0, 100, 3);
  k.tasks = 2;
  CHECK(q->next_change(k, ledger, true, sec(7)) == sec(7) + 1'666'667);
}

TEST_CASE("Sched.Queue.gittins_index_from_the_submitted_jobs_service") {
  // Quantum 1 s of wall time. Jobs of 1, 1, 1 and 10 s submitted.
  //   G(0) = max(3 done / (3x1 + 1x1) = 0.75, 4 / (3 + 10) = 0.31) = 0.75 per s
  //   G(1 s) = 1 done / 9 s = 0.111 per s (only the 10 s job is left)
  auto q = order("gittins", {{"quantum_s", "1"}, {"service", "time"}});
  CHECK(q->rekey_period() == sec(3600));
  TestLedger ledger;
  std::vector<workload::JobSpec> jobs{job(0, 0, 1), job(1, 0, 1), job(2, 0, 1), job(3, 0, 10)};
  for (const auto& j : jobs) q->job_submitted(j);
  CHECK(q->key(jobs[3], ledger, false, 0).primary == doctest::Approx(-0.75));
  ledger.lives[3] = running_life(0);
  CHECK(q->key(jobs[3], ledger, true, sec(0.5)).primary == doctest::Approx(-0.75));
  CHECK(q->next_change(jobs[3], ledger, true, sec(0.5)) == sec(1));
  CHECK(q->key(jobs[3], ledger, true, sec(1)).primary == doctest::Approx(-1.0 / 9));
  CHECK(q->next_change(jobs[3], ledger, true, sec(1)) == sec(2));
  // Beyond the largest sample nothing is known: index 0, last.
  CHECK(q->key(jobs[3], ledger, true, sec(12)).primary == doctest::Approx(0));
  // A waiting job with 1 s attained goes after a fresh one (lower index), whatever the submit.
  ledger.lives[2] = waiting_life(1, 1);
  CHECK(queue_order(*q, {jobs[2], job(4, 5, 1)}, ledger, sec(6)) == std::vector<workload::JobId>{4, 2});
}

TEST_CASE("Sched.Queue.gittins_rebuilds_its_distribution_only_at_rounds") {
  auto q = order("gittins", {{"quantum_s", "1"}, {"service", "time"}, {"refresh_s", "100"}});
  TestLedger ledger;
  auto a = job(0, 0, 10), b = job(1, 1, 1);
  q->job_submitted(a);
  CHECK(q->key(a, ledger, false, 0).primary == doctest::Approx(-0.1));  // {10}: 1 / 10 s
  q->job_submitted(b);
  // Until the round at 100 s, keys come from the distribution of the last round.
  CHECK(q->key(b, ledger, false, sec(1)).primary == doctest::Approx(-0.1));
  // {1, 10}: G(0) = 1 done / (1 + 1) = 0.5 per s.
  CHECK(q->key(b, ledger, false, sec(100)).primary == doctest::Approx(-0.5));
  CHECK(q->key(a, ledger, false, sec(100)).primary == doctest::Approx(-0.5));
}

TEST_CASE("Sched.Queue.ftf_largest_finish_time_ratio_first") {
  auto q = order("ftf", {{"round_s", "60"}});
  CHECK(q->rekey_period() == sec(60));
  TestLedger ledger;
  ledger.active = 2;
  // Job 0: 100 s on 1 GPU, waiting since 0; at 50 s: shared 50 + 100 = 150 s, ideal 100 s x 2.
  // Job 1: 100 s on 2 GPUs, running on 1 GPU since 0 with 50 s done: shared 50 + 50 x 2/1 =
  // 150 s, ideal 100 s x 2 GPUs x 2 jobs.
  auto j0 = job(0, 0, 100), j1 = job(1, 0, 100, 2);
  ledger.lives[1] = running_life(0, 0, 1);
  ledger.lives[1].work_total = static_cast<double>(sec(100));
  CHECK(q->key(j0, ledger, false, sec(50)).primary == doctest::Approx(-150.0 / 200));
  CHECK(q->key(j1, ledger, true, sec(50)).primary == doctest::Approx(-150.0 / 400));
  // One more active job stretches every ideal time alike.
  ledger.active = 3;
  CHECK(q->key(j0, ledger, false, sec(50)).primary == doctest::Approx(-150.0 / 300));
  // Waiting longer raises rho: a job submitted earlier with the same work goes first.
  auto j2 = job(2, 20, 100);
  CHECK(queue_order(*q, {j2, j0}, ledger, sec(50)) == std::vector<workload::JobId>{0, 2});
}

// --- the scheduler's timers --------------------------------------------------------------

TEST_CASE("Sched.Queue.las_timer_is_asked_for_the_exact_threshold_instant") {
  cluster::GpuCatalog catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 1, 4), catalog);
  cluster::AllocationState alloc(topo);
  TestLedger ledger;
  auto config = scheduler_config("best-fit");
  config.queue = "las";
  config.args["las"] = {{"thresholds", "[3, 7.5]"}, {"service", "gpu-time"}};
  sched::Scheduler s(config, sched::builtin_parts(), topo, &ledger);
  auto j = job(0, 0, 100, 2);
  REQUIRE_FALSE(s.submit(j, catalog.all(), 0));
  std::vector<sched::StartDecision> starts;
  std::vector<sched::TimerRequest> timers;
  s.schedule(sec(1), alloc, starts);
  REQUIRE(starts.size() == 1);
  s.starts_applied(sec(1));
  s.take_timers(timers);
  // 3 GPU-s on 2 GPUs from 1 s: 2.5 s.
  REQUIRE(timers.size() == 1);
  CHECK(timers[0].at == sec(2.5));
  CHECK(s.key_of(0) == OrderKey{0, 0});
  ledger.lives[0] = running_life(1, 0, 2);
  s.on_timer(timers[0].job, timers[0].version, timers[0].at);
  CHECK(s.key_of(0) == OrderKey{2, static_cast<double>(sec(2.5))});
  timers.clear();
  s.take_timers(timers);
  REQUIRE(timers.size() == 1);
  CHECK(timers[0].at == sec(4.75));  // 7.5 GPU-s
}

// --- simulations -------------------------------------------------------------------------

namespace {
// Jobs with users and estimates, which JobRow does not carry.
struct UserRow {
  double submit_s, duration_s;
  workload::Label user = 0;
  double estimate_s = 0;
  std::uint32_t tasks = 1;
  bool gang = true;
};

class UserSource final : public SpecListSource {
 public:
  explicit UserSource(const std::vector<UserRow>& rows) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      workload::JobSpec j = job(static_cast<workload::JobId>(i), rows[i].submit_s, rows[i].duration_s);
      j.user = rows[i].user;
      j.estimate = rows[i].estimate_s > 0 ? sec(rows[i].estimate_s) : 0;
      j.tasks = rows[i].tasks;
      j.gang = rows[i].gang;
      jobs_.push_back(j);
    }
  }
};

// Start instants (seconds) of every run of every job, under `queue` with `args`.
struct OrderRun {
  cluster::GpuCatalog catalog = small_catalog();
  cluster::Topology topo;
  UserSource source;
  std::unique_ptr<perf::PerfModel> perf = perf::make_trace_rate_model();
  metrics::Collector collector;
  RecordingObserver observer;

  OrderRun(std::uint16_t gpus, const std::string& queue, const sched::PartArgs& args, const std::vector<UserRow>& rows,
           std::vector<std::string> admission = {"gang"})
      : topo(uniform_cluster(1, 1, gpus), catalog),
        source(rows),
        collector(topo, 60 * kMicrosPerSecond),
        observer(topo, collector) {
    auto config = scheduler_config("best-fit", std::move(admission));
    config.queue = queue;
    config.args[queue] = args;
    sim::Simulation simulation(topo, config, source, *perf, observer, "memory");
    simulation.run();
  }
  std::vector<double> starts(workload::JobId id) const {
    std::vector<double> out;
    for (auto t : observer.job(id).starts) out.push_back(engine::to_seconds(t));
    return out;
  }
  double start_s(workload::JobId id) const { return starts(id).front(); }
};
}  // namespace

TEST_CASE("Sched.Queue.sim_sjf_starts_the_short_job_first") {
  // One GPU busy until 100 s; a 50 s job and then a 10 s job (estimated 5 s) wait.
  const std::vector<UserRow> rows{{0, 100}, {1, 50}, {2, 10, 0, 5}};
  OrderRun fifo(1, "fifo", {}, rows), sjf(1, "sjf", {}, rows);
  CHECK(fifo.start_s(1) == 100);
  CHECK(fifo.start_s(2) == 150);
  CHECK(sjf.start_s(2) == 100);
  CHECK(sjf.start_s(1) == 110);
}

TEST_CASE("Sched.Queue.sim_fair_share_alternates_users") {
  // Two GPUs. User 1 submits four jobs at 0 s (two start), user 2 two jobs at 1 s. As each
  // GPU frees, it goes to the user holding fewer: user 2 at 100 s, user 1 at 150 s.
  const std::vector<UserRow> rows{{0, 100, 1}, {0, 150, 1}, {0, 100, 1}, {0, 100, 1}, {1, 100, 2}, {1, 100, 2}};
  OrderRun fifo(2, "fifo", {}, rows), fair(2, "fair-share", {}, rows);
  CHECK(fifo.start_s(2) == 100);
  CHECK(fifo.start_s(3) == 150);
  CHECK(fifo.start_s(4) == 200);
  CHECK(fair.start_s(0) == 0);
  CHECK(fair.start_s(1) == 0);
  CHECK(fair.start_s(4) == 100);  // user 2 holds nothing, user 1 one GPU
  CHECK(fair.start_s(2) == 150);  // user 1 holds nothing, user 2 one GPU
  CHECK(fair.observer.violations() == 0);
}

// A user's share includes the job just started: the scheduler rekeys started jobs (and
// their users' jobs) once the simulation has applied the starts. Job 2 starts at 150 s, so
// user 1 holds a GPU again and user 2's job 5 takes the next one ahead of job 3.
TEST_CASE("Sched.Queue.sim_fair_share_sees_the_jobs_it_just_started") {
  const std::vector<UserRow> rows{{0, 100, 1}, {0, 150, 1}, {0, 100, 1}, {0, 100, 1}, {1, 100, 2}, {1, 100, 2}};
  OrderRun fair(2, "fair-share", {}, rows);
  CHECK(fair.start_s(5) == 200);
  CHECK(fair.start_s(3) == 250);
}

TEST_CASE("Sched.Queue.sim_las_demotion_timer_moves_a_partly_started_job_back") {
  // Two GPUs, one held by job 0 until 300 s. Job 1 has two non-gang tasks of 100 s: one runs
  // from 0 s, the other waits with the running job's key. Job 2 (5 s) arrives at 1 s. With a
  // 10 s threshold the timer at 10 s demotes job 1, and job 2 takes the GPU job 1 frees at
  // 100 s; with a 1000 s threshold job 1's second task does.
  const std::vector<UserRow> rows{{0, 300}, {0, 100, 0, 0, 2, false}, {1, 5}};
  OrderRun low(2, "las", {{"thresholds", "[10]"}, {"service", "time"}}, rows, {"incremental"});
  OrderRun high(2, "las", {{"thresholds", "[1000]"}, {"service", "time"}}, rows, {"incremental"});
  CHECK(low.starts(1) == std::vector<double>{0, 105});
  CHECK(low.start_s(2) == 100);
  CHECK(high.starts(1) == std::vector<double>{0, 100});
  CHECK(high.start_s(2) == 200);
}

TEST_CASE("Sched.Queue.sim_gittins_puts_a_fresh_short_job_before_a_long_partly_run_one") {
  // As above, under gittins (10 s quanta, rounds of 5 s): from the round at 5 s the sample
  // {300, 100, 5 s} gives a fresh job 1/25 per s, and job 1 past its first quantum
  // (from 10 s) 1/180 per s.
  const std::vector<UserRow> rows{{0, 300}, {0, 100, 0, 0, 2, false}, {1, 5}};
  OrderRun g(2, "gittins", {{"quantum_s", "10"}, {"service", "time"}, {"refresh_s", "5"}}, rows, {"incremental"});
  OrderRun fifo(2, "fifo", {}, rows, {"incremental"});
  CHECK(g.start_s(2) == 100);
  CHECK(g.starts(1) == std::vector<double>{0, 105});
  CHECK(fifo.start_s(2) == 200);
}

TEST_CASE("Sched.Queue.sim_ftf_rounds_favour_the_job_furthest_behind") {
  // One GPU busy until 100 s; a 1000 s job (1 s) and a 10 s job (2 s) wait. At submit the
  // long job's rho is higher; by the round at 50 s the short one's wait weighs more.
  const std::vector<UserRow> rows{{0, 100}, {1, 1000}, {2, 10}};
  OrderRun rounds(1, "ftf", {{"round_s", "50"}}, rows), fifo(1, "fifo", {}, rows);
  CHECK(fifo.start_s(1) == 100);
  CHECK(rounds.start_s(2) == 100);
  CHECK(rounds.start_s(1) == 110);
}

// --- args ----------------------------------------------------------------------------------

TEST_CASE("Sched.Queue.args_errors_name_the_arg_and_the_values") {
  auto fails = [](const std::string& name, const sched::PartArgs& args, const std::string& message) {
    CAPTURE(name);
    CHECK_THROWS_WITH_AS(order(name, args), message.c_str(), util::InputError);
  };
  fails("las", {{"thresholds", "[20, 10]"}},
        "scheduler.args.las.thresholds: [20, 10] must be positive and strictly increasing (item 2 is 10)");
  fails("las", {{"thresholds", "[0, 10]"}},
        "scheduler.args.las.thresholds: [0, 10] must be positive and strictly increasing (item 1 is 0)");
  fails("las", {{"thresholds", "[10, 10]"}},
        "scheduler.args.las.thresholds: [10, 10] must be positive and strictly increasing (item 2 is 10)");
  fails("las", {{"thresholds", "[10, x]"}}, "scheduler.args.las.thresholds: 'x' is not a number");
  fails("las", {{"thresholds", "[]"}}, "scheduler.args.las.thresholds: '[]' is an empty list");
  fails("las", {{"thresolds", "[10]"}},
        "scheduler.args.las.thresolds: unknown las arg 'thresolds'; did you mean 'thresholds'? valid: thresholds, "
        "service, promote_after, order, demote_at");
  fails("las", {{"demote_at", "tiresias-py3"}},
        "scheduler.args.las.demote_at: unknown demote_at 'tiresias-py3'; did you mean 'tiresias-py2'? valid: exact, "
        "tiresias-py2");
  fails("las", {{"demote_at", "tiresias-py2"}, {"promote_after", "2"}},
        "scheduler.args.las.demote_at: tiresias-py2 does not combine with promote_after (the simulator's promotion "
        "restarts the wall time its next look counts from; not modelled)");
  fails("las", {{"order", "lists"}},
        "scheduler.args.las.order: unknown order 'lists'; did you mean 'list'? valid: entered, list, arrival");
  fails("las", {{"service", "gpu-tim"}},
        "scheduler.args.las.service: unknown service 'gpu-tim'; did you mean 'gpu-time'? valid: time, gpu-time");
  fails("las", {{"promote_after", "-1"}}, "scheduler.args.las.promote_after: -1 is out of range [0, 1000000]");
  fails("las", {{"promote_after", "1.5"}}, "scheduler.args.las.promote_after: '1.5' is not a whole number");
  fails("gittins", {{"quantum_s", "0"}}, "scheduler.args.gittins.quantum_s: '0' must be a positive number of seconds");
  fails("gittins", {{"rebuild_growth", "1"}}, "scheduler.args.gittins.rebuild_growth: 1 is out of range (1, 1000000]");
  fails("ftf", {{"round_s", "-5"}}, "scheduler.args.ftf.round_s: '-5' must be a positive number of seconds");
  fails("ftf", {{"round_s", "4e9"}},
        "scheduler.args.ftf.round_s: 4000000000 s is out of range [0, 3153600000] (100 years)");
  fails("ftf", {{"round", "5"}},
        "scheduler.args.ftf.round: unknown ftf arg 'round'; did you mean 'round_s'? valid: round_s");
  fails("sjf", {{"x", "1"}}, "scheduler.args.sjf.x: unknown sjf arg 'x'; sjf takes no args");
  // A single number is a one-item list; seconds may have fractions.
  CHECK_NOTHROW(order("las", {{"thresholds", "3600"}}));
  CHECK_NOTHROW(order("las", {{"thresholds", "[0.5, 7200]"}, {"promote_after", "8"}}));
}
