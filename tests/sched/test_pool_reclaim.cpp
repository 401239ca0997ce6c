// Preemption `pool-reclaim` as a part on its own: at an entitlement period, whom it stops in a
// pool that has held more than its entitlement for long enough, in which order, and when it stops.
#include <doctest/doctest.h>

#include <map>

#include "pools/pool_book.h"
#include "sched/registry.h"
#include "sched_fixtures.h"

using namespace schedlab;
using namespace schedlab::testing;

namespace {
// Lives by job id; a job not listed has never run.
class ReclaimLedger final : public sched::JobLedger {
 public:
  std::map<workload::JobId, sched::JobLife> lives;
  const sched::JobLife& life(workload::JobId id) const override {
    auto it = lives.find(id);
    return it == lives.end() ? idle_ : it->second;
  }
  double work_done(workload::JobId, engine::Time) const override { return 0; }
  std::uint64_t user_held_milli(workload::Label) const override { return 0; }
  std::uint64_t active_jobs() const override { return lives.size(); }
  std::uint64_t active_users() const override { return 1; }
  void held_slots(workload::JobId, std::vector<cluster::TaskSlot>& out) const override { out.clear(); }

 private:
  sched::JobLife idle_;
};

pools::PoolSpec leaf_pool(const char* name, double gpus, bool preemptible = true) {
  pools::PoolSpec p;
  p.name = name;
  p.reservation = {gpus, 0, 0};
  p.preemptible = preemptible;
  return p;
}

struct ReclaimCase {
  const char* what;
  bool preemptible_pool;
  std::uint32_t sustained;
  std::vector<workload::JobId> expected;  // stopped, in order
};
}  // namespace

// Pool a (4 GPUs reserved) runs six 2-GPU jobs (12 GPUs) while pool b (4 reserved) waits for
// 4 on a 12-GPU cluster: a is entitled to 8 and gives back 4 GPUs. Jobs (priority, start):
// 1 (0, 10 s), 2 (0, 20 s), 3 (1, 5 s), 4 (0, 20 s), 5 (-1, not preemptible), 6 (-1, stopping).
TEST_CASE("Sched.PoolReclaim.stops_the_lowest_priority_latest_started_jobs_until_the_pool_is_within") {
  const ReclaimCase cases[] = {
      {"over for one period, one required", true, 1, {4, 2}},
      {"not over for long enough", true, 2, {}},
      {"a non-preemptible pool keeps its jobs", false, 1, {}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    pools::PoolsConfig config;
    config.enabled = true;
    config.sustained_periods = c.sustained;
    config.pools = {leaf_pool("a", 4, c.preemptible_pool), leaf_pool("b", 4)};
    const pools::Amounts capacity{12, 100, 100};
    pools::PoolBook book(config, capacity);
    ReclaimLedger ledger;
    std::vector<workload::JobSpec> specs;
    const struct {
      std::int32_t priority;
      double start_s;
      bool preemptible;
      sched::JobState state;
    } runs[] = {{0, 10, true, sched::JobState::running},  {0, 20, true, sched::JobState::running},
                {1, 5, true, sched::JobState::running},   {0, 20, true, sched::JobState::running},
                {-1, 1, false, sched::JobState::running}, {-1, 1, true, sched::JobState::stopping}};
    for (std::size_t i = 0; i < std::size(runs); ++i) {
      auto s = spec_of(1, 2);
      s.id = static_cast<workload::JobId>(i + 1);
      s.priority = runs[i].priority;
      s.preemptible = runs[i].preemptible;
      specs.push_back(s);
      ledger.lives[s.id].state = runs[i].state;
      ledger.lives[s.id].run_start = sec(runs[i].start_s);
    }
    auto waiting = spec_of(1, 4);
    waiting.id = 7;
    for (const auto& s : specs) {
      book.assign(s.id, 0);
      book.waiting(s, 1);
      book.started(s, 1);
    }
    book.assign(waiting.id, 1);
    book.waiting(waiting, 1);
    book.recompute(capacity);
    CHECK(book.entitlement(0)[0] == doctest::Approx(8));

    auto part = sched::builtin_parts().preemptions.make("pool-reclaim", {});
    CHECK_FALSE(part->enabled());  // no job evicts another for its key
    std::vector<const workload::JobSpec*> running;
    for (auto it = specs.rbegin(); it != specs.rend(); ++it) running.push_back(&*it);  // any order
    std::vector<workload::JobId> stopped;
    part->entitlement_period(book, ledger, [&]() -> const auto& { return running; }, [&](workload::JobId id) {
      stopped.push_back(id);
      book.released(id);
    });
    CHECK(stopped == c.expected);
  }
}

TEST_CASE("Sched.PoolReclaim.other_preemption_parts_reclaim_nothing") {
  pools::PoolsConfig config;
  config.enabled = true;
  config.sustained_periods = 1;
  config.pools = {leaf_pool("a", 0)};
  pools::PoolBook book(config, pools::Amounts{0, 0, 0});
  ReclaimLedger ledger;
  for (const char* name : {"none", "reorder", "priority"}) {
    CAPTURE(name);
    auto part = sched::builtin_parts().preemptions.make(name, {});
    bool called = false;
    const std::vector<const workload::JobSpec*> none;
    part->entitlement_period(book, ledger, [&]() -> const auto& { return none; }, [&](workload::JobId) { called = true; });
    CHECK_FALSE(called);
  }
}
