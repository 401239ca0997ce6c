// gittins with the Tiresias simulator's ranks (docs/policies.md, D11): its rounding, its rank
// per sample worked by hand, the sample file, the keys within las' queues, and the errors.
#include <doctest/doctest.h>

#include <fstream>
#include <map>

#include "../support/scratch_dir.h"
#include "../support/sim_harness.h"
#include "sched/gittins_tiresias.h"
#include "sched/registry.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::testing;
using sched::OrderKey;

namespace gittins_tiresias_test {

// Lives the test writes; nothing else is asked of it here.
class RankLedger final : public sched::JobLedger {
 public:
  std::map<workload::JobId, sched::JobLife> lives;
  const sched::JobLife& life(workload::JobId id) const override {
    auto it = lives.find(id);
    return it == lives.end() ? blank_ : it->second;
  }
  double work_done(workload::JobId, engine::Time) const override { return 0; }
  std::uint64_t user_held_milli(workload::Label) const override { return 0; }
  std::uint64_t active_jobs() const override { return 1; }
  std::uint64_t active_users() const override { return 0; }
  void held_slots(workload::JobId, std::vector<cluster::TaskSlot>& out) const override { out.clear(); }

 private:
  sched::JobLife blank_;
};

// Samples of 2, 4 and 10 s in a file under `dir`.
std::string sample_file(const ScratchDir& dir, const std::string& body = "job,duration\na,2\nb,10\nc,4\n") {
  const auto p = dir.path / "samples.csv";
  std::ofstream(p) << body;
  return p.string();
}

}  // namespace gittins_tiresias_test

using namespace gittins_tiresias_test;

TEST_CASE("Sched.GittinsTiresias.round_half_away_is_python2s_round") {
  struct Row {
    double x;
    int digits;
    double want;
  };
  // 0.015625 = 1/64 is an exact half at 5 digits: Python 2 rounds it up (Python 3 to even).
  for (const Row& r : {Row{0.015625, 5, 0.01563}, Row{0.03125, 4, 0.0313}, Row{1.0 / 3, 5, 0.33333}, Row{2.5, 0, 3},
                       Row{0.123456789, 4, 0.1235}, Row{222223.33333333, 4, 222223.3333}, Row{0, 5, 0}, Row{7, 4, 7}}) {
    CAPTURE(r.x);
    CHECK(sched::round_half_away(r.x, r.digits) == r.want);
  }
}

TEST_CASE("Sched.GittinsTiresias.rank_per_sample_by_hand") {
  // Samples 2, 4, 10 s; quantum 3 s.
  //  i=0: 2-1+3 = 4 s reaches samples 2, 4: k=2; P = 2/3 -> 0.66667; E = (2+4 + 3x1) // 3 = 3
  //  i=1: 4-1+3 = 6 s: k=2; P = 1/2; E = (4 + 3x1) // 2 = 3 (3.5 rounded down)
  //  i=2: 10-1+3 reaches the largest sample: k = n-1 = 2; P = 0
  const std::vector<double> s{2e6, 4e6, 10e6}, prefix{0, 2e6, 6e6, 16e6};
  CHECK(sched::tiresias_rank(s, prefix, 3e6, 0) == 222223.3333);
  CHECK(sched::tiresias_rank(s, prefix, 3e6, 1) == 166666.6667);
  CHECK(sched::tiresias_rank(s, prefix, 3e6, 2) == 0);
}

TEST_CASE("Sched.GittinsTiresias.keys_in_las_queues_looked_at_events") {
  ScratchDir dir("gittins-tiresias");
  auto q = sched::builtin_parts().queues.make("gittins", {{"samples", sample_file(dir)},
                                                          {"quantum_s", "3"},
                                                          {"index", "tiresias"},
                                                          {"thresholds", "[5]"},
                                                          {"demote_at", "tiresias-py2"}});
  REQUIRE(q->rekeys_running_at_events());
  CHECK(q->rekey_period() == 0);  // nothing learned, nothing rebuilt
  RankLedger ledger;
  workload::JobSpec j;
  j.id = 0;
  j.duration = sec(100);
  q->job_submitted(j);  // not learned from: the file is the distribution
  // Fresh: queue 0, rank of sample index 0; ties follow the job id (no submit in the key).
  CHECK(q->key(j, ledger, false, 0) == OrderKey{0, -222223.3333});
  CHECK(q->next_change(j, ledger, false, 0) == engine::kTimeMax);
  CHECK(q->next_change(j, ledger, true, 0) == sec(5));  // las' look: floor(5 / 1) s
  sched::JobLife l;
  l.state = sched::JobState::running;
  l.run_start = 0;
  l.held_milli = 1000;
  ledger.lives[0] = l;
  // Looked at 3 s: 3 GPU-s, past sample 2: index 1.
  CHECK(q->key(j, ledger, true, sec(3)) == OrderKey{0, -166666.6667});
  // Looked at 6 s: demoted to queue 1 (the bottom: no further look), past sample 4: rank 0.
  CHECK(q->key(j, ledger, true, sec(6)) == OrderKey{1, -0.0});
  CHECK(q->next_change(j, ledger, true, sec(6)) == engine::kTimeMax);
}

TEST_CASE("Sched.GittinsTiresias.sample_file_and_args_errors") {
  ScratchDir dir("gittins-tiresias-errors");
  auto make = [&](const sched::PartArgs& args) { return sched::builtin_parts().queues.make("gittins", args); };
  auto fails = [&](const std::string& body, const std::string& message) {
    CAPTURE(body);
    CHECK_THROWS_WITH_AS(make({{"samples", sample_file(dir, body)}}), message.c_str(), util::InputError);
  };
  const std::string f = (dir.path / "samples.csv").string();
  fails("duration\n2\nx\n", f + ":3: duration: 'x' is not a number");
  fails("duration\n0.5\n", f + ":2: duration: must be 1 to 1e9 seconds");
  fails("duration\n", f + ":1: duration: no samples");
  CHECK_THROWS_AS(make({{"samples", sample_file(dir, "size\n2\n")}}), util::InputError);  // no duration column
  CHECK_THROWS_AS(make({{"samples", (dir.path / "none.csv").string()}}), util::InputError);
  CHECK_THROWS_WITH_AS(make({{"samples", sample_file(dir)}, {"refresh_s", "60"}}),
                       "scheduler.args.gittins.samples: refresh_s and rebuild_growth rebuild a distribution learned "
                       "from the trace; with samples there is none to rebuild: drop them",
                       util::InputError);
  CHECK_THROWS_WITH_AS(make({{"index", "tiresias"}, {"quantum_s", "2.5"}}),
                       "scheduler.args.gittins.quantum_s: index: tiresias counts in whole seconds: give a whole number "
                       "of seconds",
                       util::InputError);
  CHECK_THROWS_WITH_AS(make({{"demote_at", "tiresias-py2"}}),
                       "scheduler.args.gittins.demote_at: moves jobs between the queues that thresholds make: give "
                       "thresholds",
                       util::InputError);
  CHECK_THROWS_WITH_AS(make({{"thresholds", "[20, 10]"}}),
                       "scheduler.args.gittins.thresholds: [20, 10] must be positive and strictly increasing (item 2 "
                       "is 10)",
                       util::InputError);
}
