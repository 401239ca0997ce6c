// The preemption parts (reorder, priority), the priority queue order and greedy backfill,
// table by table, and the scheduler's preemption pass on a hand-set cluster: whom it
// evicts, that its dry run changes nothing when evicting would not help, and its counts.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "sched/scheduler.h"
#include "sched_fixtures.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::cluster;
using namespace schedlab::testing;

namespace {
// A ledger for a scheduler driven by hand: a started job runs from its start until ended.
class HandLedger final : public sched::JobLedger {
 public:
  const sched::JobLife& life(workload::JobId id) const override {
    auto it = lives_.find(id);
    return it == lives_.end() ? idle_ : it->second;
  }
  double work_done(workload::JobId, engine::Time) const override { return 0; }
  std::uint64_t user_held_milli(workload::Label) const override { return 0; }
  std::uint64_t active_jobs() const override { return lives_.size(); }
  std::uint64_t active_users() const override { return 1; }
  void held_slots(workload::JobId id, std::vector<TaskSlot>& out) const override {
    out.clear();
    if (auto it = slots_.find(id); it != slots_.end()) out = it->second;
  }
  // What the simulation would do with the scheduler's decisions.
  void started(const sched::StartDecision& d, engine::Time now) {
    auto& l = lives_[d.job];
    l.state = sched::JobState::running;
    l.run_start = now;
    auto& s = slots_[d.job];
    s.insert(s.end(), d.slots.begin(), d.slots.end());
  }
  void stopped(workload::JobId id) {
    lives_[id] = sched::JobLife{};
    slots_.erase(id);
  }

 private:
  sched::JobLife idle_;
  std::map<workload::JobId, sched::JobLife> lives_;
  std::map<workload::JobId, std::vector<TaskSlot>> slots_;
};

struct Bench {
  GpuCatalog catalog = small_catalog();
  Topology topo;
  AllocationState alloc;
  HandLedger ledger;
  sched::Scheduler scheduler;
  std::vector<workload::JobSpec> specs;  // reserved: the scheduler keeps pointers
  std::vector<sched::StartDecision> starts;
  std::vector<sched::StopDecision> stops;

  Bench(const ClusterSpec& spec, const sched::SchedulerConfig& config)
      : topo(spec, catalog), alloc(topo), scheduler(config, sched::builtin_parts(), topo, &ledger) {
    specs.reserve(64);
  }
  workload::JobId submit(std::uint32_t gpus, std::int32_t priority, engine::Time now = 0) {
    auto s = spec_of(1, gpus);
    s.id = static_cast<workload::JobId>(specs.size());
    s.submit = now;
    s.priority = priority;
    specs.push_back(s);
    REQUIRE_FALSE(scheduler.submit(specs.back(), catalog.all(), now));
    return s.id;
  }
  // One pass, its decisions applied as the simulation would (stops first, then starts).
  void run(engine::Time now) {
    starts.clear();
    stops.clear();
    scheduler.schedule(now, alloc, starts, stops);
    for (const auto& d : stops) {
      ledger.stopped(d.job);
      scheduler.requeue(d.job, now);
    }
    for (const auto& d : starts) ledger.started(d, now);
  }
  std::vector<workload::JobId> stopped() const {
    std::vector<workload::JobId> out;
    for (const auto& d : stops) out.push_back(d.job);
    return out;
  }
  std::vector<workload::JobId> started() const {
    std::vector<workload::JobId> out;
    for (const auto& d : starts) out.push_back(d.job);
    return out;
  }
  std::vector<std::uint16_t> free_per_host() const {
    std::vector<std::uint16_t> out;
    for (HostId h = 0; h < topo.hosts().size(); ++h) out.push_back(alloc.whole_free(h));
    return out;
  }
};

sched::SchedulerConfig preempting(const std::string& preemption, sched::PartArgs args = {}) {
  auto c = scheduler_config("best-fit");
  c.queue = "priority";
  c.preemption = preemption;
  if (!args.empty()) c.args[preemption] = std::move(args);
  return c;
}
}  // namespace

TEST_CASE("Sched.Queue.priority_larger_first_then_fifo") {
  auto q = sched::builtin_parts().queues.make("priority", {});
  sched::FreshLedger ledger;
  struct Row {
    std::int32_t priority;
    double submit_s;
  };
  // Sorted as the queue must order them.
  const Row rows[] = {{2, 50}, {1, 0}, {1, 10}, {0, 0}, {-3, 0}};
  std::vector<sched::OrderKey> keys;
  for (const auto& r : rows) {
    workload::JobSpec s;
    s.priority = r.priority;
    s.submit = sec(r.submit_s);
    keys.push_back(q->key(s, ledger, false, 0));
  }
  for (std::size_t i = 1; i < keys.size(); ++i) CHECK(keys[i - 1] < keys[i]);
}

TEST_CASE("Sched.Preemption.parts_outrank_and_order_victims") {
  const auto& r = sched::builtin_parts().preemptions;
  auto none = r.make("none", {});
  auto reorder = r.make("reorder", {});
  auto priority = r.make("priority", {});
  CHECK_FALSE(none->enabled());
  CHECK(reorder->enabled());
  CHECK(priority->enabled());
  struct Row {
    sched::OrderKey waiting, running;
    bool reorder, priority;
  };
  // Keys as the priority queue makes them: (-priority, submit).
  const Row rows[] = {
      {{-2, 50}, {-1, 0}, true, true},    // a better class
      {{-1, 0}, {-1, 10}, true, false},   // same class, earlier: reorder only
      {{-1, 10}, {-1, 10}, false, false}, // an equal key never
      {{-1, 0}, {-2, 50}, false, false},  // a worse class never
  };
  for (const auto& row : rows) {
    CHECK(reorder->outranks(row.waiting, row.running) == row.reorder);
    CHECK(priority->outranks(row.waiting, row.running) == row.priority);
  }
  // Within a group: priority evicts the youngest run first, reorder the worst key.
  sched::EvictionCandidate old_worse{1, {0, 20}, sec(0)}, young_better{2, {0, 10}, sec(5)};
  CHECK(priority->evict_first(young_better, old_worse));
  CHECK(reorder->evict_first(old_worse, young_better));
  // Equal in everything but the id: the higher id first, for a deterministic choice.
  sched::EvictionCandidate a{3, {0, 0}, 0}, b{4, {0, 0}, 0};
  CHECK(priority->evict_first(b, a));
  CHECK(reorder->evict_first(b, a));
}

TEST_CASE("Sched.Preemption.arguments_checked") {
  const auto& r = sched::builtin_parts();
  CHECK(r.preemptions.make("reorder", {{"min_run_s", "30"}})->min_run() == sec(30));
  CHECK(r.preemptions.make("priority", {{"min_run_s", "0.5"}})->min_run() == sec(0.5));
  CHECK(r.backfills.make("greedy", {{"max_scan", "7"}})->max_scan() == 7);
  CHECK(r.backfills.make("greedy", {})->max_scan() == 1000);
  struct Bad {
    const char* kind;
    const char* part;
    const char* arg;
    const char* value;
    const char* message;
  };
  const Bad bad[] = {
      {"preemption", "reorder", "min_run_s", "-1", "scheduler.args.reorder.min_run_s: -1 s is out of range"},
      {"preemption", "priority", "min_run_s", "soon", "scheduler.args.priority.min_run_s: 'soon' is not a number"},
      {"preemption", "reorder", "min_run", "30", "did you mean 'min_run_s'?"},
      {"backfill", "greedy", "max_scan", "0", "scheduler.args.greedy.max_scan: '0' is not a positive integer"},
      {"preemption", "reorder", "pass", "walk", "scheduler.args.reorder.pass"},
  };
  for (const auto& b : bad) {
    CAPTURE(b.part);
    sched::PartArgs args{{b.arg, b.value}};
    std::string what;
    try {
      if (std::string(b.kind) == "preemption")
        r.preemptions.make(b.part, args);
      else
        r.backfills.make(b.part, args);
    } catch (const util::InputError& e) {
      what = e.what();
    }
    CHECK(what.find(b.message) != std::string::npos);
  }
}

// Hosts h0, h1 of 4 GPUs, best-fit, priority queue. Running: A (priority 5, 2 GPUs) and
// two free GPUs on h0; B (priority 0, 2 GPUs) and C (priority 5, 2 GPUs) on h1. P (priority
// 3) wants 1 x 4 GPUs. It outranks only B; B's 2 GPUs and h0's 2 free make 4, but on two
// hosts: no host would hold P. Neither part evicts anything, and the dry run leaves every
// host as it was.
TEST_CASE("Sched.Preemption.dry_run_changes_nothing_when_eviction_would_not_help") {
  for (const char* part : {"priority", "reorder"}) {
    CAPTURE(part);
    Bench b(uniform_cluster(1, 2, 4), preempting(part));
    const auto a = b.submit(2, 5);
    const auto filler = b.submit(2, 5);
    b.run(0);  // A and the filler fill h0 (best-fit)
    const auto bj = b.submit(2, 0, sec(1));
    const auto c = b.submit(2, 5, sec(1));
    b.run(sec(1));  // B and C fill h1
    CHECK(b.started() == std::vector<workload::JobId>{c, bj});
    // The filler ends: h0 has 2 free.
    std::vector<TaskSlot> held;
    b.ledger.held_slots(filler, held);
    b.alloc.release(Placement{held});
    b.scheduler.job_ended(filler, sec(2));
    b.ledger.stopped(filler);
    REQUIRE(b.free_per_host() == std::vector<std::uint16_t>{2, 0});
    b.submit(4, 3, sec(3));
    b.run(sec(3));
    CHECK(b.stops.empty());
    CHECK(b.starts.empty());
    CHECK(b.free_per_host() == std::vector<std::uint16_t>{2, 0});
    CHECK(b.scheduler.preemptions() == 0);
    (void)a;
  }
}

// Hosts h0, h1 of 4 GPUs. Running, all priority 0: X (4 GPUs on h0, started t=0), Z (2 GPUs
// on h1, t=1), Y (2 GPUs on h1, t=5). P (priority 2, 1 x 4 GPUs) arrives at t=10.
//   priority: youngest first: Y (h1: 2 free, no host of 4), then Z (h1: 4 free): P places.
//     Reprieve Y? Without it h1 has 2: no. Victims Y and Z; X keeps running.
//   reorder: worst key first: Y (submitted t=5), then Z: the same victims here.
// An equal key never evicts: Q (priority 0, 1 x 4) arriving later waits.
TEST_CASE("Sched.Preemption.victims_worst_first_with_reprieve_and_start_in_the_same_pass") {
  for (const char* part : {"priority", "reorder"}) {
    CAPTURE(part);
    Bench b(uniform_cluster(1, 2, 4), preempting(part));
    const auto x = b.submit(4, 0);
    b.run(0);
    const auto z = b.submit(2, 0, sec(1));
    b.run(sec(1));
    const auto y = b.submit(2, 0, sec(5));
    b.run(sec(5));
    REQUIRE(b.free_per_host() == std::vector<std::uint16_t>{0, 0});
    const auto p = b.submit(4, 2, sec(10));
    b.run(sec(10));
    CHECK(b.stopped() == std::vector<workload::JobId>{y, z});
    for (const auto& d : b.stops) {
      CHECK(d.by == p);
      CHECK(d.released);
      CHECK(d.cause == sched::StopCause::preempted);
    }
    REQUIRE(b.started() == std::vector<workload::JobId>{p});
    CHECK(slots_text(b.starts[0].slots) == "h1:4");
    CHECK(b.scheduler.preemptions() == 2);
    // Equal keys: Q (priority 0) evicts nobody, and Y, Z (requeued) evict nobody either.
    b.submit(4, 0, sec(11));
    b.run(sec(11));
    CHECK(b.stops.empty());
    CHECK(b.scheduler.preemptions() == 2);
    (void)x;
  }
}

// The reprieve keeps a victim freed early that the job can do without. Hosts h0, h1 of 4 GPUs:
// h0 holds A (priority 1) and E (priority 0, the youngest), h1 holds B and D (priority 0). P
// (priority 2, 1 x 4) frees E (h0: 2 free), D (h1: 2), B (h1: 4: P places). Reprieve, best
// first: D (without it h1 has 2: needed), then E (h1 has 4 without it: kept). Victims D and B;
// the dry run gave every slot back, so only they are freed.
TEST_CASE("Sched.Preemption.reprieve_keeps_a_victim_freed_before_the_needed_ones") {
  for (const char* part : {"priority", "reorder"}) {
    CAPTURE(part);
    Bench b(uniform_cluster(1, 2, 4), preempting(part));
    const auto a = b.submit(2, 1);
    const auto filler = b.submit(2, 0);
    b.run(0);  // A and the filler fill h0
    const auto bj = b.submit(2, 0, sec(1));
    b.run(sec(1));
    const auto d = b.submit(2, 0, sec(2));
    b.run(sec(2));  // B and D fill h1
    std::vector<TaskSlot> held;
    b.ledger.held_slots(filler, held);
    b.alloc.release(Placement{held});
    b.scheduler.job_ended(filler, sec(2));
    b.ledger.stopped(filler);
    const auto e = b.submit(2, 0, sec(3));
    b.run(sec(3));  // E takes the filler's place on h0
    REQUIRE(b.free_per_host() == std::vector<std::uint16_t>{0, 0});
    const auto p = b.submit(4, 2, sec(10));
    b.run(sec(10));
    auto stopped = b.stopped();
    std::sort(stopped.begin(), stopped.end());
    CHECK(stopped == std::vector<workload::JobId>{bj, d});
    REQUIRE(b.started() == std::vector<workload::JobId>{p});
    CHECK(slots_text(b.starts[0].slots) == "h1:4");
    CHECK(b.free_per_host() == std::vector<std::uint16_t>{0, 0});
    (void)a;
    (void)e;
  }
}

// The same with four victims (the reprieve then frees them all once and takes each trial's
// back): h0 holds A (priority 1) and E1, E2 (1 GPU each, the youngest); h1 holds B and D. P frees
// E2, E1, D, B; reprieve: D needed, E1 and E2 kept (h1 alone holds P).
TEST_CASE("Sched.Preemption.reprieve_of_many_victims_keeps_the_ones_not_needed") {
  for (const char* part : {"priority", "reorder"}) {
    CAPTURE(part);
    Bench b(uniform_cluster(1, 2, 4), preempting(part));
    const auto a = b.submit(2, 1);
    const auto filler = b.submit(2, 0);
    b.run(0);
    const auto bj = b.submit(2, 0, sec(1));
    b.run(sec(1));
    const auto d = b.submit(2, 0, sec(2));
    b.run(sec(2));
    std::vector<TaskSlot> held;
    b.ledger.held_slots(filler, held);
    b.alloc.release(Placement{held});
    b.scheduler.job_ended(filler, sec(2));
    b.ledger.stopped(filler);
    const auto e1 = b.submit(1, 0, sec(3));
    b.run(sec(3));
    const auto e2 = b.submit(1, 0, sec(4));
    b.run(sec(4));
    REQUIRE(b.free_per_host() == std::vector<std::uint16_t>{0, 0});
    const auto p = b.submit(4, 2, sec(10));
    b.run(sec(10));
    auto stopped = b.stopped();
    std::sort(stopped.begin(), stopped.end());
    CHECK(stopped == std::vector<workload::JobId>{bj, d});
    REQUIRE(b.started() == std::vector<workload::JobId>{p});
    CHECK(slots_text(b.starts[0].slots) == "h1:4");
    CHECK(b.free_per_host() == std::vector<std::uint16_t>{0, 0});
    (void)a;
    (void)e1;
    (void)e2;
  }
}

// min_run: hosts h0 of 4 GPUs. L (priority 0, 4 GPUs) starts at t=0; H (priority 1, 4 GPUs)
// arrives at t=10. With min_run_s 30 L may not be evicted before t=30: the pass at t=10
// evicts nothing and asks for a wake-up at t=30; at t=30 L is evicted and H starts.
TEST_CASE("Sched.Preemption.min_run_holds_until_the_exact_instant") {
  for (const char* part : {"priority", "reorder"}) {
    CAPTURE(part);
    Bench b(uniform_cluster(1, 1, 4), preempting(part, {{"min_run_s", "30"}}));
    const auto l = b.submit(4, 0);
    b.run(0);
    std::vector<sched::TimerRequest> timers;
    b.scheduler.take_timers(timers);
    const auto h = b.submit(4, 1, sec(10));
    b.run(sec(10));
    CHECK(b.stops.empty());
    timers.clear();
    b.scheduler.take_timers(timers);
    REQUIRE(timers.size() == 1);
    CHECK(timers[0].at == sec(30));
    const auto timers_at_30 = timers[0];
    b.run(sec(20));  // another instant before t=30: nothing to evict yet, no second timer
    CHECK(b.stops.empty());
    timers.clear();
    b.scheduler.take_timers(timers);
    CHECK(timers.empty());
    b.scheduler.on_timer(timers_at_30.job, timers_at_30.version, sec(30));
    b.run(sec(30));
    CHECK(b.stopped() == std::vector<workload::JobId>{l});
    CHECK(b.started() == std::vector<workload::JobId>{h});
  }
}

// Greedy backfill: host h0 of 4 GPUs with 2 held; the head wants 4, a later job 2: the later
// one starts (no reservation), where strict order would not start it.
// One host of 4 GPUs. Running: X (priority 3, 2 GPUs) and R (priority 0, 2 GPUs). Waiting:
// W1 (priority 2, 4 GPUs) and W2 (priority 1, 1 GPU).
//   pass: evict: W1 outranks only R; R's 2 GPUs are not 4: the pass ends there, nothing moves.
//   pass: redecide: the walk counts 4 GPUs: X keeps 2; W1 (4) is skipped; W2 takes 1; R (2)
//     no longer fits and is preempted, by a job that asks for less than it had (D4, D5).
TEST_CASE("Sched.Preemption.reorder_redecide_walks_every_job_by_gpu_count") {
  for (const char* pass : {"evict", "redecide"}) {
    CAPTURE(pass);
    Bench b(uniform_cluster(1, 1, 4), preempting("reorder", {{"pass", pass}}));
    const auto x = b.submit(2, 3);
    const auto r = b.submit(2, 0);
    b.run(0);
    REQUIRE(b.started() == std::vector<workload::JobId>{x, r});
    b.submit(4, 2, sec(1));
    const auto w2 = b.submit(1, 1, sec(1));
    b.run(sec(1));
    if (std::string(pass) == "evict") {
      CHECK(b.stops.empty());
      CHECK(b.starts.empty());
    } else {
      CHECK(b.stopped() == std::vector<workload::JobId>{r});
      CHECK(b.stops.front().by == w2);
      CHECK(b.started() == std::vector<workload::JobId>{w2});
      CHECK(b.free_per_host() == std::vector<std::uint16_t>{1});
      CHECK(b.scheduler.preemptions() == 1);
    }
  }
}

TEST_CASE("Sched.Backfill.greedy_starts_any_later_job_that_fits") {
  for (const char* backfill : {"none", "greedy"}) {
    CAPTURE(backfill);
    auto c = scheduler_config("best-fit", {"gang"}, {"gpu-model"}, backfill);
    Bench b(uniform_cluster(1, 1, 4), c);
    b.alloc.take(TaskSlot{0, 2, 0, 0});
    b.submit(4, 0);
    const auto small = b.submit(2, 0);
    b.run(0);
    if (std::string(backfill) == "greedy")
      CHECK(b.started() == std::vector<workload::JobId>{small});
    else
      CHECK(b.starts.empty());
  }
}
