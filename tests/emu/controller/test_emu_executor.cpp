// The emulate executor: what it tells agents when runs start and stop, and what agents'
// reports become (a run's end, its failure, a stale task killed).
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "emu/controller/emu_executor.h"
#include "support/sim_harness.h"

namespace schedlab::emu {
namespace {

using testing::sec;

// Away from the emulator's 29500: a test never takes a real emulation's block.
constexpr GangPortsConfig kTestPorts{31500, 3, 4};

// Collects commands by host.
struct FakeAgents final : AgentLink {
  std::vector<std::pair<cluster::HostId, Command>> sent;
  void send(cluster::HostId host, Command c) override { sent.emplace_back(host, std::move(c)); }
  std::string address_of(cluster::HostId host) const override { return "10.0.0." + std::to_string(host); }
  std::vector<LaunchCommand> launches() const {
    std::vector<LaunchCommand> out;
    for (const auto& [h, c] : sent)
      if (auto* l = std::get_if<LaunchCommand>(&c)) out.push_back(*l);
    return out;
  }
  std::vector<KillCommand> kills() const {
    std::vector<KillCommand> out;
    for (const auto& [h, c] : sent)
      if (auto* k = std::get_if<KillCommand>(&c)) out.push_back(*k);
    return out;
  }
};

struct Outside final : sim::OutsideEvents {
  std::vector<sim::RunId> ended, failed;
  void run_ended(sim::RunId run, engine::Time) override { ended.push_back(run); }
  void run_failed(sim::RunId run, cluster::HostId, engine::Time) override { failed.push_back(run); }
  void host_lost(cluster::HostId, engine::Time) override {}
  void host_back(cluster::HostId, engine::Time) override {}
  workload::JobId submit(const sim::SubmittedJob&, engine::Time) override { return 0; }
  bool kill(workload::JobId, engine::Time) override { return false; }
  std::optional<sim::ServiceScaled> scale_service(const std::string&, std::uint32_t, engine::Time) override {
    return std::nullopt;
  }
  void inspect(sim::RunView&, std::size_t, bool) const override {}
};

TaskReport report(const LaunchCommand& l, TaskState state, int code = 0) {
  TaskReport r;
  r.task = l.task;
  r.job = l.job;
  r.run = l.run;
  r.rank = l.rank;
  r.state = state;
  if (state == TaskState::exited) r.exit_code = code;
  if (state == TaskState::signaled) r.signal = code;
  return r;
}

// A 2-host cluster of 8 GPUs each and a 3-task gang (4 + 4 on h0, 8 on h1).
struct Fixture {
  cluster::GpuCatalog catalog = testing::small_catalog();
  cluster::Topology topo{testing::uniform_cluster(1, 2, 8), catalog};
  std::unique_ptr<perf::PerfModel> perf = perf::make_trace_rate_model();
  FakeAgents agents;
  Outside outside;
  EmuExecutor exec;
  workload::JobSpec job;
  cluster::Placement placement;

  // `tweak` changes the executor's options (a scenario's checkpoint or preemption settings).
  explicit Fixture(const std::function<void(EmuExecutorOptions&)>& tweak = {})
      : exec(topo, *perf, agents, [&] {
          EmuExecutorOptions o;
          o.speedup = 100;
          o.self_exe = "/bin/schedlab";
          o.checkpoint_root = "/tmp/ck";
          o.lifecycle.grace = sec(120);
          o.ports = kTestPorts;
          o.emulation_id = "emu-1";
          if (tweak) tweak(o);
          return o;
        }()) {
    job.id = 5;
    job.duration = sec(600);
    job.tasks = 3;
    placement.tasks = {{0, 4, 0, 0}, {0, 4, 0, 0}, {1, 8, 0, 0}};
  }
};

}  // namespace

TEST_CASE("Emulation.Executor.a_start_launches_one_worker_per_task_with_the_gangs_environment") {
  Fixture f;
  f.exec.start(1, f.job, f.placement, sec(10), 600e6, 0);
  auto l = f.agents.launches();
  REQUIRE(l.size() == 3);
  std::set<std::string> visible_on_h0;
  for (std::uint32_t rank = 0; rank < 3; ++rank) {
    CAPTURE(rank);
    CHECK(l[rank].rank == rank);
    CHECK(l[rank].env.at("RANK") == std::to_string(rank));
    CHECK(l[rank].env.at("WORLD_SIZE") == "3");
    CHECK(l[rank].env.at("MASTER_ADDR") == "10.0.0.0");  // rank 0's host
    CHECK(l[rank].env.at("MASTER_PORT") == l[0].env.at("MASTER_PORT"));
    CHECK(l[rank].env.at("SCHEDLAB_EMULATION_ID") == "emu-1");
    CHECK(l[rank].argv.at(1) == "worker");
    CHECK(l[rank].checkpoint_dir == "/tmp/ck/job-5");
  }
  CHECK(l[0].env.at("LOCAL_RANK") == "0");
  CHECK(l[1].env.at("LOCAL_RANK") == "1");
  CHECK(l[2].env.at("LOCAL_RANK") == "0");
  // Two tasks on one host see different GPUs.
  CHECK(l[0].env.at("CUDA_VISIBLE_DEVICES") == "0,1,2,3");
  CHECK(l[1].env.at("CUDA_VISIBLE_DEVICES") == "4,5,6,7");
  CHECK(l[2].env.at("CUDA_VISIBLE_DEVICES") == "0,1,2,3,4,5,6,7");
}

TEST_CASE("Emulation.Executor.gangs_hold_their_port_until_their_last_task_is_gone_and_two_emulations_never_share_one") {
  Fixture f, other;  // two emulations on one machine
  f.exec.start(1, f.job, f.placement, 0, 600e6, 0);
  other.exec.start(1, other.job, other.placement, 0, 600e6, 0);
  const std::string mine = f.agents.launches()[0].env.at("MASTER_PORT");
  const std::string theirs = other.agents.launches()[0].env.at("MASTER_PORT");
  CHECK(mine != theirs);
  // The run is stopped, but two of its tasks still run (SIGTERM sent, not yet exited): its port
  // is not lent to the next gang, whatever its run number.
  f.exec.stop(1, sec(10), true);
  auto l = f.agents.launches();
  f.exec.on_report(1, report(l[2], TaskState::exited, 143), sec(11), f.outside);
  // Other jobs (a run of job 5 would wait for run 1's tasks to exit: see the resize case).
  auto job_of = [&](workload::JobId id) {
    workload::JobSpec j = f.job;
    j.id = id;
    return j;
  };
  f.exec.start(2, job_of(6), f.placement, sec(12), 600e6, 0);  // the block's other port
  l = f.agents.launches();
  REQUIRE(l.size() == 6);
  CHECK(l[3].env.at("MASTER_PORT") != mine);
  const std::string second = l[3].env.at("MASTER_PORT");
  // Both of the block's ports lent: the next gang's comes from a block claimed now.
  f.exec.start(3, job_of(7), f.placement, sec(13), 600e6, 0);
  l = f.agents.launches();
  CHECK(l[6].env.at("MASTER_PORT") != mine);
  CHECK(l[6].env.at("MASTER_PORT") != second);
  CHECK(l[6].env.at("MASTER_PORT") != theirs);
  // Its last tasks gone, run 1's port is lent again, in its turn (the new block's other port
  // first), before anything more is claimed.
  f.exec.on_report(0, report(l[0], TaskState::exited, 143), sec(14), f.outside);
  f.exec.on_report(0, report(l[1], TaskState::exited, 143), sec(14), f.outside);
  const std::set<std::string> lent = {second, l[6].env.at("MASTER_PORT")};
  f.exec.start(4, job_of(8), f.placement, sec(15), 600e6, 0);
  f.exec.start(5, job_of(9), f.placement, sec(15), 600e6, 0);
  l = f.agents.launches();
  CHECK(lent.count(l[9].env.at("MASTER_PORT")) == 0);
  CHECK(l[9].env.at("MASTER_PORT") != mine);
  CHECK(l[12].env.at("MASTER_PORT") == mine);
}

TEST_CASE("Emulation.Executor.a_gang_of_one_gets_no_port") {
  Fixture f;
  f.job.tasks = 1;
  f.placement.tasks = {{0, 4, 0, 0}};
  f.exec.start(1, f.job, f.placement, 0, 600e6, 0);
  auto l = f.agents.launches();
  REQUIRE(l.size() == 1);
  CHECK(l[0].env.count("MASTER_PORT") == 0);
  CHECK(l[0].env.at("WORLD_SIZE") == "1");
  CHECK(l[0].env.at("SCHEDLAB_EMULATION_ID") == "emu-1");
}

TEST_CASE("Emulation.Executor.a_run_ends_when_every_task_exited_zero") {
  Fixture f;
  f.exec.start(1, f.job, f.placement, 0, 600e6, 0);
  auto l = f.agents.launches();
  f.exec.on_report(0, report(l[0], TaskState::exited, 0), sec(5), f.outside);
  f.exec.on_report(0, report(l[1], TaskState::exited, 0), sec(5), f.outside);
  CHECK(f.outside.ended.empty());
  f.exec.on_report(1, report(l[2], TaskState::exited, 0), sec(6), f.outside);
  CHECK(f.outside.ended == std::vector<sim::RunId>{1});
  CHECK(f.exec.is_current(engine::Event{.time = sec(6), .cls = engine::EventClass::completion, .subject = 1}));
  CHECK(f.exec.live());  // the run waits for the loop to process its end
  f.exec.finished(1, sec(6));
  CHECK_FALSE(f.exec.live());
}

TEST_CASE("Emulation.Executor.a_task_that_dies_fails_its_run_once") {
  Fixture f;
  f.exec.start(1, f.job, f.placement, 0, 600e6, 0);
  auto l = f.agents.launches();
  f.exec.on_report(0, report(l[0], TaskState::signaled, 9), sec(5), f.outside);
  f.exec.on_report(1, report(l[2], TaskState::exited, 4), sec(5), f.outside);  // its peer, gang broken
  CHECK(f.outside.failed == std::vector<sim::RunId>{1});
  CHECK(f.outside.ended.empty());
}

TEST_CASE("Emulation.Executor.a_preemption_kills_gracefully_a_failure_at_once") {
  Fixture f;
  f.exec.start(1, f.job, f.placement, 0, 600e6, 0);
  // Graceful: the grace period (120 trace s) at speedup 100 is 1.2 s of wall time.
  const double done = f.exec.stop(1, sec(60), true);
  CHECK(done == doctest::Approx(60e6));
  auto k = f.agents.kills();
  REQUIRE(k.size() == 3);
  for (const auto& kill : k) CHECK(kill.grace_ms == 1200);
  // Their exits after the kill no longer count.
  auto l = f.agents.launches();
  for (std::size_t i = 0; i < 3; ++i) f.exec.on_report(i < 2 ? 0 : 1, report(l[i], TaskState::exited, 143), sec(61), f.outside);
  CHECK(f.outside.failed.empty());
  CHECK_FALSE(f.exec.live());

  f.exec.start(2, f.job, f.placement, sec(100), 600e6, 0);
  f.exec.stop(2, sec(110), false);
  auto k2 = f.agents.kills();
  REQUIRE(k2.size() == 6);
  CHECK(k2.back().grace_ms == 0);
}

TEST_CASE("Emulation.Executor.a_resized_job_starts_again_once_its_stopped_gang_has_saved_and_exited") {
  // A resize stops the gang and starts it at another size in one instant. The new gang must
  // resume from the checkpoint the old one writes as it stops, on GPUs it has left: its launch
  // waits for the old tasks' exits, and restores for what is left of the restart the
  // simulator charged after the save (restart 30 s, save 10 s: restore 20 s).
  Fixture f([](EmuExecutorOptions& o) {
    o.lifecycle.grace = 0;
    o.lifecycle.checkpoint_set = true;
    o.lifecycle.checkpoint = {sec(300), sec(10), sec(5)};
  });
  f.exec.start(1, f.job, f.placement, 0, 600e6, 0);
  // Graceful whatever the grace period (0 here): the save's 10 trace s are 100 ms at speedup
  // 100, and half a second more.
  f.exec.stop(1, sec(60), true);
  auto k = f.agents.kills();
  REQUIRE(k.size() == 3);
  for (const auto& kill : k) CHECK(kill.grace_ms == 600);
  cluster::Placement smaller;
  smaller.tasks = {{0, 4, 0, 0}, {0, 4, 0, 0}};  // host 0's GPUs 0-7, two of them still held
  f.exec.start(2, f.job, smaller, sec(60), 540e6, sec(30));
  CHECK(f.agents.launches().size() == 3);  // nothing sent yet
  auto l = f.agents.launches();
  f.exec.on_report(0, report(l[0], TaskState::exited, 143), sec(61), f.outside);
  f.exec.on_report(0, report(l[1], TaskState::exited, 143), sec(61), f.outside);
  CHECK(f.agents.launches().size() == 3);  // rank 2 still saving
  f.exec.on_report(1, report(l[2], TaskState::exited, 143), sec(61), f.outside);
  l = f.agents.launches();
  REQUIRE(l.size() == 5);
  for (std::size_t i = 3; i < 5; ++i) {
    const auto& argv = l[i].argv;
    const auto at = std::find(argv.begin(), argv.end(), "--restore-us");
    REQUIRE(at != argv.end());
    CHECK(*std::next(at) == "20000000");
  }
  CHECK(l[3].env.at("CUDA_VISIBLE_DEVICES") == "0,1,2,3");  // the GPUs the old gang left
  CHECK(l[4].env.at("CUDA_VISIBLE_DEVICES") == "4,5,6,7");
  CHECK(f.outside.failed.empty());
}

TEST_CASE("Emulation.Executor.a_resize_stopped_again_before_it_launched_never_launches") {
  Fixture f;
  f.exec.start(1, f.job, f.placement, 0, 600e6, 0);
  f.exec.stop(1, sec(60), true);
  f.exec.start(2, f.job, f.placement, sec(60), 540e6, sec(30));  // held
  f.exec.stop(2, sec(65), true);                                 // forgotten, nothing to kill
  CHECK(f.agents.kills().size() == 3);
  auto l = f.agents.launches();
  for (std::size_t i = 0; i < 3; ++i) f.exec.on_report(i < 2 ? 0 : 1, report(l[i], TaskState::exited, 143), sec(66), f.outside);
  CHECK(f.agents.launches().size() == 3);
  CHECK_FALSE(f.exec.live());
}

TEST_CASE("Emulation.Executor.a_still_running_task_it_does_not_know_is_killed") {
  Fixture f;
  TaskReport stale;
  stale.task = "j3-r9-t0";
  stale.state = TaskState::running;
  f.exec.on_report(1, stale, sec(1), f.outside);
  auto k = f.agents.kills();
  REQUIRE(k.size() == 1);
  CHECK(k[0].task == "j3-r9-t0");
  CHECK(k[0].grace_ms == 0);
}


TEST_CASE("Emulation.Executor.scheduling_latency_is_one_sample_per_run_when_its_last_task_is_first_heard_of") {
  // From the start decision to the report that makes every task heard of (running, or already
  // exited: it ran); reports heard again add nothing, and a replay measures nothing.
  Fixture f;
  f.exec.start(1, f.job, f.placement, 0, 600e6, 0);
  auto l = f.agents.launches();
  f.exec.on_report(0, report(l[0], TaskState::running), sec(1), f.outside);
  f.exec.on_report(0, report(l[0], TaskState::running), sec(1), f.outside);
  f.exec.on_report(0, report(l[1], TaskState::running), sec(1), f.outside);
  CHECK(f.exec.start_latency_ms().empty());  // rank 2 not heard of yet
  f.exec.on_report(1, report(l[2], TaskState::exited, 0), sec(2), f.outside);
  REQUIRE(f.exec.start_latency_ms().size() == 1);
  CHECK(f.exec.start_latency_ms()[0] >= 0);
  f.exec.on_report(0, report(l[1], TaskState::running), sec(2), f.outside);
  CHECK(f.exec.start_latency_ms().size() == 1);

  f.exec.set_replaying(true);
  f.exec.start(2, f.job, f.placement, sec(3), 600e6, 0);
  f.exec.on_report(0, report(l[0], TaskState::running), sec(3), f.outside);  // run 1's, stale
  f.exec.set_replaying(false);
  CHECK(f.exec.start_latency_ms().size() == 1);
}

}  // namespace schedlab::emu
