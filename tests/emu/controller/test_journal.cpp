// The emulation's journal (emu/controller/journal.h): what reached the loop from outside, written down as
// it was applied, read back after a crash, and replayed into a fresh loop that then makes the
// same decisions without telling any agent again.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "emu/controller/emu_executor.h"
#include "emu/controller/inbox.h"
#include "emu/controller/journal.h"
#include "emu/controller/journal_clock.h"
#include "support/scratch_dir.h"
#include "support/sim_harness.h"
#include "util/error.h"

namespace schedlab::emu {
namespace {

using testing::sec;

TaskReport report(std::string task, TaskState state, int code = 0) {
  TaskReport r;
  r.task = std::move(task);
  r.state = state;
  if (state == TaskState::exited) r.exit_code = code;
  if (state == TaskState::signaled) r.signal = code;
  return r;
}

std::string journal_with(const testing::ScratchDir& dir, const std::vector<std::string>& lines) {
  const auto path = (dir.path / "journal.jsonl").string();
  std::ofstream f(path);
  f << R"({"schedlab_journal":1,"emulate":{"speedup":100}})" << "\n";
  for (const auto& l : lines) f << l << "\n";
  return path;
}

// Where a bad journal is refused: the line and the field.
std::pair<long, std::string> refusal(const std::string& path) {
  try {
    read_journal(path);
  } catch (const util::InputError& e) {
    return {e.line(), e.field()};
  }
  return {0, "(accepted)"};
}

}  // namespace

TEST_CASE("Emulation.Journal.every_input_reads_back_as_it_was_written") {
  testing::ScratchDir dir("journal-roundtrip");
  const auto path = (dir.path / "journal.jsonl").string();
  sim::SubmittedJob job;
  job.spec.tasks = 2;
  job.spec.gpus_per_task = 4;
  job.spec.duration = 123456789;
  job.spec.priority = -3;
  job.name = "from-api";
  job.user = "ann";
  job.model = "A100|H100";
  TaskReport ended = report("j3-r7-t1", TaskState::exited, 1);
  ended.job = 3, ended.run = 7, ended.rank = 1, ended.progress = 0.1 + 0.2;
  {
    auto w = JournalWriter::create(path, {{"speedup", 100}});
    w.clock_started({sec(5), 1795000000123456});
    w.record(ReportInput{2, ended});
    w.record(HostLostInput{1});
    w.end_batch(sec(6));
    w.end_batch(sec(7));  // nothing recorded: no line
    w.record(HostBackInput{1});
    w.record(SubmitInput{job});
    w.record(KillInput{42});
    w.record(ScaleInput{"web", 3});
    w.end_batch(sec(8));
  }
  CHECK_THROWS_AS(JournalWriter::create(path, {}), util::EnvironmentError);  // never overwritten
  const Journal j = read_journal(path);
  CHECK(j.options.at("speedup") == 100);
  REQUIRE(j.anchor);
  CHECK(*j.anchor == ClockAnchor{sec(5), 1795000000123456});
  REQUIRE(j.batches.size() == 2);
  CHECK(j.batches[0].at == sec(6));
  REQUIRE(j.batches[0].inputs.size() == 2);
  CHECK(std::get<ReportInput>(j.batches[0].inputs[0]) == ReportInput{2, ended});
  CHECK(std::get<HostLostInput>(j.batches[0].inputs[1]).host == 1);
  CHECK(j.batches[1].at == sec(8));
  REQUIRE(j.batches[1].inputs.size() == 4);
  CHECK(std::get<HostBackInput>(j.batches[1].inputs[0]).host == 1);
  const auto& back = std::get<SubmitInput>(j.batches[1].inputs[1]).job;
  CHECK(back.spec.tasks == 2);
  CHECK(back.spec.gpus_per_task == 4);
  CHECK(back.spec.duration == 123456789);
  CHECK(back.spec.priority == -3);
  CHECK(back.name == "from-api");
  CHECK(back.user == "ann");
  CHECK(back.model == "A100|H100");
  CHECK(std::get<KillInput>(j.batches[1].inputs[2]).job == 42);
  CHECK(std::get<ScaleInput>(j.batches[1].inputs[3]) == ScaleInput{"web", 3});
}

TEST_CASE("Emulation.Journal.a_line_cut_short_by_a_crash_is_ignored_and_the_resumed_writer_goes_on_after_it") {
  testing::ScratchDir dir("journal-torn");
  const auto path = journal_with(dir, {R"({"at":10,"in":[{"lost":0}]})"});
  { std::ofstream(path, std::ios::app) << R"({"at":20,"in":[{"ba)"; }  // killed mid-write
  CHECK(read_journal(path).batches.size() == 1);
  {
    auto w = JournalWriter::append(path);
    w.record(HostBackInput{0});
    w.end_batch(30);
  }
  const auto j = read_journal(path);
  REQUIRE(j.batches.size() == 2);
  CHECK(j.batches[1].at == 30);
  CHECK(std::holds_alternative<HostBackInput>(j.batches[1].inputs[0]));
}

TEST_CASE("Emulation.Journal.a_journal_that_is_not_one_is_refused_with_its_line_and_field") {
  testing::ScratchDir dir("journal-bad");
  CHECK(refusal((dir.path / "absent.jsonl").string()).second == "journal");
  const auto bad_version = (dir.path / "v2.jsonl").string();
  std::ofstream(bad_version) << R"({"schedlab_journal":2,"emulate":{}})" << "\n";
  CHECK(refusal(bad_version) == std::pair<long, std::string>{1, "schedlab_journal"});
  CHECK(refusal(journal_with(dir, {R"({"at":10,"in":[]})", R"({"at":5,"in":[]})"})) ==
        std::pair<long, std::string>{3, "at"});
  CHECK(refusal(journal_with(dir, {R"({"at":10,"in":[{"reboot":1}]})"})).first == 2);
  CHECK(refusal(journal_with(dir, {R"({"at":10,"in":[{"host":1,"report":{"task":"t"}}]})"})) ==
        std::pair<long, std::string>{2, "report.job"});
}

namespace {

// Collects the executor's commands.
struct FakeAgents final : AgentLink {
  std::vector<std::pair<cluster::HostId, Command>> sent;
  void send(cluster::HostId host, Command c) override { sent.emplace_back(host, std::move(c)); }
  std::string address_of(cluster::HostId) const override { return "127.0.0.1"; }
};

// Agents as a script: each launched task reports running a second later and exits 0 once
// its job's duration has passed (job 1's first task exits 1 after 20 s instead); a killed
// task reports SIGTERM half a second later; host 1 is lost at 50 s and back at 80 s; a job is
// submitted at 30 s. What reaches the loop is written to the journal, as the inbox does.
class ScriptedAgents final : public sim::Clock {
 public:
  ScriptedAgents(FakeAgents& agents, EmuExecutor& exec, JournalWriter& journal)
      : agents_(agents), exec_(exec), journal_(journal) {
    plan(sec(30), SubmitInput{submitted()});
    plan(sec(50), HostLostInput{1});
    plan(sec(80), HostBackInput{1});
  }
  static sim::SubmittedJob submitted() {
    sim::SubmittedJob j;
    j.spec.tasks = 1;
    j.spec.gpus_per_task = 4;
    j.spec.duration = sec(40);
    j.name = "late";
    return j;
  }

  engine::Time advance(engine::Time next, sim::OutsideEvents& outside) override {
    learn();
    if (pending_.empty() || next <= pending_.begin()->first) return last_ = next;
    const auto it = pending_.begin();
    const engine::Time at = it->first;
    for (const auto& in : it->second) {
      if (const auto* lost = std::get_if<HostLostInput>(&in)) lost_.insert(lost->host);
      if (const auto* back = std::get_if<HostBackInput>(&in)) lost_.erase(back->host);
      if (const auto* r = std::get_if<ReportInput>(&in); r && lost_.count(r->host)) continue;
      journal_.record(in);
      apply_input(in, at, exec_, outside);
    }
    journal_.end_batch(at);
    pending_.erase(it);
    return last_ = at;
  }

 private:
  void plan(engine::Time at, OutsideInput in) { pending_[at].push_back(std::move(in)); }
  // The commands sent since the last instant were sent at it.
  void learn() {
    for (; seen_ < agents_.sent.size(); ++seen_) {
      const auto& [host, c] = agents_.sent[seen_];
      if (const auto* l = std::get_if<LaunchCommand>(&c)) {
        const bool doomed = l->job == 1 && l->rank == 0 && !failed_once_;
        failed_once_ = failed_once_ || doomed;
        const engine::Time work = std::stoll(l->argv.at(3));
        plan(last_ + sec(1), ReportInput{host, report(l->task, TaskState::running)});
        plan(last_ + (doomed ? sec(20) : work), ReportInput{host, report(l->task, TaskState::exited, doomed ? 1 : 0)});
      } else if (const auto* k = std::get_if<KillCommand>(&c)) {
        plan(last_ + sec(0.5), ReportInput{host, report(k->task, TaskState::signaled, 15)});
      }
    }
  }

  FakeAgents& agents_;
  EmuExecutor& exec_;
  JournalWriter& journal_;
  std::map<engine::Time, std::vector<OutsideInput>> pending_;
  std::set<cluster::HostId> lost_;
  std::size_t seen_ = 0;
  bool failed_once_ = false;
  engine::Time last_ = 0;
};

// One emulated run over fake agents: live (scripted, journaled) or replayed from a journal.
struct EmulatedRun {
  cluster::GpuCatalog catalog = testing::small_catalog();
  cluster::Topology topo{testing::uniform_cluster(1, 2, 8), catalog};
  testing::VectorSource source{{{0, 100, 2, 4}, {5, 60, 1, 8}, {10, 30, 1, 4}, {12, 90, 2, 8}, {40, 20, 1, 2}}};
  std::unique_ptr<perf::PerfModel> perf = perf::make_trace_rate_model();
  metrics::Collector collector{topo, 60 * testing::kMicrosPerSecond};
  testing::RecordingObserver observer{topo, collector};
  FakeAgents agents;
  EmuExecutor exec{topo, *perf, agents, [] {
                     EmuExecutorOptions o;
                     o.self_exe = "/bin/schedlab";
                     o.checkpoint_root = "/tmp/ck";
                     return o;
                   }()};
  sim::SimulationStats stats;

  void run(sim::Clock& clock) {
    sim::Simulation simulation(topo, testing::scheduler_config("best-fit"), source, *perf, observer, "memory", {},
                               nullptr, sim::Driver{&clock, &exec});
    stats = simulation.run();
  }
};

// The scripted run, live, its inputs journaled to `path`.
void run_live(EmulatedRun& live, const std::string& path) {
  auto journal = JournalWriter::create(path, nlohmann::json::object());
  ScriptedAgents agents(live.agents, live.exec, journal);
  live.run(agents);
}

}  // namespace

TEST_CASE("Emulation.Journal.a_replayed_run_makes_the_same_decisions_and_sends_nothing") {
  testing::ScratchDir dir("journal-replay");
  const auto path = (dir.path / "journal.jsonl").string();
  EmulatedRun live;
  run_live(live, path);
  REQUIRE(live.stats.failures >= 2);  // job 1's first task, and what ran on host 1 when it was lost
  REQUIRE(live.observer.job(5).done == 1);  // the job submitted from outside ran

  EmulatedRun replayed;
  replayed.exec.set_replaying(true);
  WallClock wall(1e6, [] { return false; });
  int handovers = 0;
  JournalClock clock(
      read_journal(path).batches,
      [&](const OutsideInput& in, engine::Time now, sim::OutsideEvents& outside) {
        apply_input(in, now, replayed.exec, outside);
      },
      [&](engine::Time) { ++handovers; }, wall);
  replayed.run(clock);

  CHECK(replayed.agents.sent.empty());
  CHECK(handovers == 0);  // every job ended within the journal: no wall clock needed
  CHECK(replayed.stats.instants == live.stats.instants);
  CHECK(replayed.stats.failures == live.stats.failures);
  for (workload::JobId id = 0; id < 6; ++id) {
    CAPTURE(id);
    CHECK(replayed.observer.job(id).starts == live.observer.job(id).starts);
    const auto& a = replayed.observer.job(id).placements;
    const auto& b = live.observer.job(id).placements;
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i].describe() == b[i].describe());
    CHECK(replayed.observer.job(id).end == live.observer.job(id).end);
  }
}

TEST_CASE("Emulation.Journal.after_a_part_replay_the_executor_knows_what_should_still_run") {
  testing::ScratchDir dir("journal-part");
  const auto path = (dir.path / "journal.jsonl").string();
  EmulatedRun live;
  run_live(live, path);
  // The controller was killed after the first two instants with inputs (the running reports
  // of jobs 0 and 1).
  auto batches = read_journal(path).batches;
  REQUIRE(batches.size() > 2);
  batches.resize(2);
  EmulatedRun replayed;
  replayed.exec.set_replaying(true);
  std::vector<std::string> on_h0, on_h1;
  // A replay cannot finish the jobs; the test stops the loop at the handover.
  struct Stop {};
  WallClock wall(1e6, [] { return false; });
  JournalClock clock(
      batches,
      [&](const OutsideInput& in, engine::Time now, sim::OutsideEvents& outside) {
        apply_input(in, now, replayed.exec, outside);
      },
      [&](engine::Time) {
        on_h0 = replayed.exec.tasks_on(0);
        on_h1 = replayed.exec.tasks_on(1);
        throw Stop{};
      },
      wall);
  CHECK_THROWS_AS(replayed.run(clock), Stop);
  CHECK(replayed.agents.sent.empty());
  // Job 0 (2 x 4 GPUs) and job 1 (8 GPUs) were launched at 0 s and 5 s; nothing ended yet.
  std::vector<std::string> all = on_h0;
  all.insert(all.end(), on_h1.begin(), on_h1.end());
  std::sort(all.begin(), all.end());
  CHECK(all == std::vector<std::string>{"j0-r0-t0", "j0-r0-t1", "j1-r1-t0"});
}

}  // namespace schedlab::emu
