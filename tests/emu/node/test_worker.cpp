// `schedlab worker` in-process: it takes W / (S·X) wall time, resumes from a checkpoint paying the
// restore, saves everything on a graceful stop paying the save, checkpoints at multiples of the
// interval, advances in lockstep with its gang, and fails with its gang when a rank is killed.
// Speedups are large so that each case takes well under a second of wall time.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <utility>  // before Boost.Asio 1.74, which uses std::exchange without it
#include <boost/asio.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "calib/gpu_step.h"
#include "emu/node/checkpoint_file.h"
#include "emu/node/worker.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::emu;
using namespace std::chrono_literals;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct WorkerFolder {
  fs::path path;
  explicit WorkerFolder(const std::string& name)
      : path(fs::temp_directory_path() / ("schedlab-worker-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path / "ckpt");
  }
  ~WorkerFolder() { fs::remove_all(path); }
  std::string ckpt() const { return (path / "ckpt").string(); }
  std::string progress(int rank = 0) const { return (path / ("progress-" + std::to_string(rank))).string(); }
};

std::string file_text(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

WorkerConfig solo(std::int64_t work, double speed, double speedup) {
  WorkerConfig c;
  c.work = work;
  c.speed = speed;
  c.speedup = speedup;
  return c;
}

// The environment as a map, for worker_config.
Environment env_of(std::map<std::string, std::string> vars) {
  auto held = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [held](const char* name) -> const char* {
    auto it = held->find(name);
    return it == held->end() ? nullptr : it->second.c_str();
  };
}

std::string config_error(const WorkerArgs& a, std::map<std::string, std::string> env = {}) {
  try {
    worker_config(a, env_of(std::move(env)));
  } catch (const util::InputError& e) {
    return e.what();
  }
  return "";
}

WorkerArgs args(std::string work = "1000", std::string speed = "1", std::string speedup = "10") {
  WorkerArgs a;
  a.work_us = std::move(work);
  a.speed = std::move(speed);
  a.speedup = std::move(speedup);
  return a;
}

// A free TCP port on 127.0.0.1 (bound, read, closed: a small race that tests can live with).
std::uint16_t free_port() {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor a(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
  return a.local_endpoint().port();
}

}  // namespace

// ---- configuration ----------------------------------------------------------------------------

TEST_CASE("Worker.Config.reads_options_and_the_torchrun_environment") {
  WorkerFolder dir("config");
  WorkerArgs a = args("5000", "0.8", "100");
  a.step_us = "250";
  a.checkpoint_interval_us = "1000";
  a.save_us = "3e6";
  a.restore_us = "0";
  a.peer_timeout_s = "0.5";
  const WorkerConfig c = worker_config(a, env_of({{"RANK", "2"},
                                                  {"WORLD_SIZE", "4"},
                                                  {"LOCAL_RANK", "0"},
                                                  {"MASTER_ADDR", "127.0.0.1"},
                                                  {"MASTER_PORT", "29500"},
                                                  {"SCHEDLAB_JOB_ID", "job-17"},
                                                  {"SCHEDLAB_EMULATION_ID", "0123abcd"},
                                                  {"SCHEDLAB_PROGRESS_FILE", dir.progress()}}));
  CHECK(c.work == 5000);
  CHECK(c.speed == doctest::Approx(0.8));
  CHECK(c.speedup == 100);
  CHECK(c.step == 250);
  CHECK(c.checkpoint_interval == 1000);
  CHECK(c.save == 3'000'000);
  CHECK(c.peer_timeout == 500ms);
  CHECK(c.rank == 2);
  CHECK(c.world_size == 4);
  CHECK(c.master_addr == "127.0.0.1");
  CHECK(c.master_port == 29500);
  CHECK(c.job_id == "job-17");
  CHECK(c.emulation_id == "0123abcd");
  CHECK(c.progress_file == dir.progress());
  // Rank 2 never touches the checkpoint folder, so it need not see one.
  CHECK(c.checkpoint_dir.empty());

  const WorkerConfig alone = worker_config(args(), env_of({{"SCHEDLAB_CHECKPOINT_DIR", dir.ckpt()}}));
  CHECK(alone.world_size == 1);
  CHECK(alone.rank == 0);
  CHECK(alone.checkpoint_dir == dir.ckpt());
  CHECK(alone.step == 0);
  CHECK(default_step(1, 10) == 100'000);  // 10 ms wall at 10 units per wall microsecond
  CHECK(default_step(1e-9, 1e-6) == 1);
}

TEST_CASE("Worker.Config.bad_values_are_one_error_naming_the_option_or_variable") {
  WorkerFolder dir("badconfig");
  const std::string missing = (dir.path / "nope").string();
  struct Case {
    WorkerArgs a;
    std::map<std::string, std::string> env;
    std::string error;
  };
  auto with = [](WorkerArgs a, auto f) {
    f(a);
    return a;
  };
  const std::vector<Case> cases = {
      {args(""), {}, "--work-us: required"},
      {args("ten"), {}, "--work-us: 'ten' is not a number"},
      {args("-1"), {}, "--work-us: -1 is out of range"},
      {args("1.5"), {}, "--work-us: 1.5 is not a whole number"},
      {args("1000", "0"), {}, "--speed: 0 is out of range"},
      {args("1000", "nan"), {}, "--speed: 'nan' is not a number"},
      {args("1000", "1", "0"), {}, "--speedup: 0 is out of range"},
      {args("1000", "1", "1e12"), {}, "--speedup: 1000000000000 is out of range [1e-06, 1000000000]"},
      {with(args(), [](WorkerArgs& a) { a.step_us = "0"; }), {}, "--step-us: 0 is out of range"},
      {with(args(), [](WorkerArgs& a) { a.save_us = "-3"; }), {}, "--save-us: -3 is out of range"},
      {with(args(), [](WorkerArgs& a) { a.peer_timeout_s = "inf"; }), {}, "--peer-timeout-s: 'inf' is not a number"},
      {with(args(), [](WorkerArgs& a) { a.checkpoint_interval_us = "100"; }), {}, "--checkpoint-interval-us: needs a checkpoint folder"},
      {with(args(), [&](WorkerArgs& a) { a.checkpoint_dir = missing; }), {}, missing + ": --checkpoint-dir: is not a folder"},
      {args(), {{"SCHEDLAB_CHECKPOINT_DIR", missing}}, missing + ": env SCHEDLAB_CHECKPOINT_DIR: is not a folder"},
      {with(args(), [&](WorkerArgs& a) { a.progress_file = missing + "/p"; }), {}, missing + "/p: --progress-file: its folder does not exist"},
      {with(args(), [](WorkerArgs& a) { a.gemm_flops = "1e9"; }), {}, "--gemm-flops: only with --gpu"},
      {with(args(), [](WorkerArgs& a) { a.gpu = true; }), {}, "--gemm-flops: required"},
      {with(args(), [](WorkerArgs& a) { a.gpu = true; a.gemm_flops = "1e9"; a.allreduce_bytes = "1.5"; }), {},
       "--allreduce-bytes: 1.5 is not a whole number"},
      {with(args(), [](WorkerArgs& a) { a.gpu = true; a.gemm_flops = "1e9"; a.allreduce_bytes = "8"; }),
       {{"CUDA_VISIBLE_DEVICES", "0,,1"}}, "env CUDA_VISIBLE_DEVICES: '0,,1' is not a list"},
      {args(), {{"RANK", "x"}, {"WORLD_SIZE", "2"}}, "env RANK: 'x' is not a number"},
      {args(), {{"RANK", "2"}, {"WORLD_SIZE", "2"}}, "env RANK: 2 is not a rank of a gang of 2"},
      {args(), {{"RANK", "1"}}, "env RANK: 1 is not a rank of a gang of 1"},
      {args(), {{"WORLD_SIZE", "3"}}, "env RANK: missing, with WORLD_SIZE 3"},
      {args(), {{"WORLD_SIZE", "0"}}, "env WORLD_SIZE: 0 is out of range"},
      {args(), {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "29500"}}, "env MASTER_ADDR: missing"},
      {args(), {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}, "env MASTER_PORT: missing"},
      {args(), {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "70000"}},
       "env MASTER_PORT: 70000 is out of range [1, 65535]"},
      {args(), {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "a b"}, {"MASTER_PORT", "1"}},
       "env MASTER_ADDR: 'a b' may hold only printable characters"},
      {args(), {{"SCHEDLAB_JOB_ID", std::string(200, 'j')}}, "env SCHEDLAB_JOB_ID: "},
      {args(), {{"SCHEDLAB_EMULATION_ID", "a b"}}, "env SCHEDLAB_EMULATION_ID: 'a b' may hold only printable"},
      {args(), {{"LOCAL_RANK", "-1"}}, "env LOCAL_RANK: -1 is out of range"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.error);
    const std::string e = config_error(c.a, c.env);
    CHECK(e.rfind(c.error, 0) == 0);
    CHECK(e.find('\n') == std::string::npos);
  }
}

// ---- a worker alone -----------------------------------------------------------------------------

TEST_CASE("Worker.Alone.runs_W_work_in_W_over_S_times_X_wall_time") {
  WorkerFolder dir("alone");
  WorkerConfig c = solo(2'000'000, 0.8, 10);  // 2e6 / (0.8 × 10) = 250 ms
  c.progress_file = dir.progress();
  StopControl stop;
  std::vector<std::int64_t> steps;
  WorkerHooks hooks;
  hooks.on_step = [&](std::int64_t w) { steps.push_back(w); };
  const auto t0 = Clock::now();
  const WorkerResult r = run_worker(c, stop, hooks);
  const double took = seconds_since(t0);
  CHECK(r.outcome == WorkerOutcome::finished);
  CHECK(worker_exit_code(r.outcome) == 0);
  CHECK(r.work == 2'000'000);
  CHECK(file_text(dir.progress()) == "2000000\n");
  CHECK(took >= 0.9 * 0.25);
  CHECK(took <= 3 * 0.25);
  // Steps of the default size (10 ms wall = 80,000 units), the last one cut at W.
  REQUIRE(steps.size() == 25);
  CHECK(steps.front() == 80'000);
  CHECK(steps.back() == 2'000'000);
}

TEST_CASE("Worker.Alone.no_work_left_ends_at_once") {
  StopControl stop;
  const auto t0 = Clock::now();
  const WorkerResult r = run_worker(solo(0, 1, 1), stop);
  CHECK(r.outcome == WorkerOutcome::finished);
  CHECK(seconds_since(t0) < 0.1);
}

TEST_CASE("Worker.Resume.starts_from_the_checkpoint_after_paying_the_restore") {
  WorkerFolder dir("resume");
  write_checkpoint(dir.ckpt(), 600);
  // 1 unit per 1/(1 × 0.003) µs: the 600 units left take 200 ms; the restore 300/0.003 = 100 ms.
  WorkerConfig c = solo(1200, 1, 0.003);
  c.restore = 300;
  c.checkpoint_dir = dir.ckpt();
  c.progress_file = dir.progress();
  std::vector<std::pair<double, std::int64_t>> steps;
  WorkerHooks hooks;
  const auto t0 = Clock::now();
  hooks.on_step = [&](std::int64_t w) { steps.emplace_back(seconds_since(t0), w); };
  StopControl stop;
  const WorkerResult r = run_worker(c, stop, hooks);
  const double took = seconds_since(t0);
  CHECK(r.outcome == WorkerOutcome::finished);
  CHECK(file_text(dir.progress()) == "1200\n");
  REQUIRE(!steps.empty());
  CHECK(steps.front().second == 630);          // the first step after the checkpoint (30 units = 10 ms)
  CHECK(steps.front().first >= 0.9 * 0.110);   // after the restore and one step
  CHECK(took >= 0.9 * 0.3);
  CHECK(took <= 3 * 0.3);
  // The checkpoint is kept at the end (the controller cleans the job's folder).
  CHECK(read_checkpoint(dir.ckpt()) == 600);
}

TEST_CASE("Worker.Resume.without_a_checkpoint_starts_at_zero_and_pays_no_restore") {
  WorkerFolder dir("fresh");
  WorkerConfig c = solo(1'000'000, 1, 10);  // 100 ms
  c.restore = 10'000'000;                   // would be 1 s
  c.checkpoint_dir = dir.ckpt();
  StopControl stop;
  const auto t0 = Clock::now();
  CHECK(run_worker(c, stop).outcome == WorkerOutcome::finished);
  CHECK(seconds_since(t0) < 0.5);
}

TEST_CASE("Worker.Resume.a_checkpoint_beyond_the_work_is_an_error") {
  WorkerFolder dir("beyond");
  write_checkpoint(dir.ckpt(), 5000);
  WorkerConfig c = solo(1000, 1, 10);
  c.checkpoint_dir = dir.ckpt();
  StopControl stop;
  CHECK_THROWS_WITH_AS(run_worker(c, stop), doctest::Contains("checkpoint:2: work: 5000 is more than the job's work"),
                       util::InputError);
}

// ---- stops --------------------------------------------------------------------------------------

TEST_CASE("Worker.Stop.graceful_saves_the_work_done_at_the_signal_and_takes_the_save_time") {
  WorkerFolder dir("graceful");
  WorkerConfig c = solo(1'000'000'000, 1, 10);  // far more work than the test lets it do
  c.save = 2'000'000;                           // 200 ms wall
  c.checkpoint_dir = dir.ckpt();
  c.progress_file = dir.progress();
  StopControl stop;
  std::atomic<std::int64_t> last{0};
  WorkerHooks hooks;
  hooks.on_step = [&](std::int64_t w) { last = w; };
  std::int64_t at_signal = 0;
  Clock::time_point signalled;
  std::thread signaller([&] {
    std::this_thread::sleep_for(200ms);
    at_signal = last;
    signalled = Clock::now();
    stop.request();
  });
  const WorkerResult r = run_worker(c, stop, hooks);
  const double save_took = seconds_since(signalled);
  signaller.join();
  CHECK(r.outcome == WorkerOutcome::stopped);
  CHECK(worker_exit_code(r.outcome) == 143);
  const std::int64_t step = default_step(1, 10);
  CHECK(at_signal > 0);
  CHECK(r.work >= at_signal);
  CHECK(r.work <= at_signal + step);
  CHECK(read_checkpoint(dir.ckpt()) == r.work);
  CHECK(file_text(dir.progress()) == std::to_string(r.work) + "\n");
  CHECK(save_took >= 0.9 * 0.2);
  CHECK(save_took <= 3 * 0.2);
}

TEST_CASE("Worker.Stop.a_second_request_cuts_the_save_short_and_only_the_periodic_checkpoint_survives") {
  WorkerFolder dir("cut");
  WorkerConfig c = solo(1'000'000'000, 1, 10);
  c.checkpoint_interval = 500'000;  // every 50 ms wall
  c.save = 10'000'000;              // 1 s wall, cut after 50 ms
  c.checkpoint_dir = dir.ckpt();
  StopControl stop;
  std::atomic<std::int64_t> last{0};
  WorkerHooks hooks;
  hooks.on_step = [&](std::int64_t w) { last = w; };
  std::int64_t at_signal = 0;
  Clock::time_point first;
  std::thread signaller([&] {
    std::this_thread::sleep_for(270ms);
    at_signal = last;
    first = Clock::now();
    stop.request();
    std::this_thread::sleep_for(50ms);
    stop.request();
  });
  const WorkerResult r = run_worker(c, stop, hooks);
  const double took = seconds_since(first);
  signaller.join();
  CHECK(r.outcome == WorkerOutcome::cut_short);
  CHECK(took < 0.5);
  const auto saved = read_checkpoint(dir.ckpt());
  REQUIRE(saved.has_value());
  CHECK(*saved % 500'000 == 0);
  CHECK(*saved <= at_signal);
  CHECK(*saved > at_signal - 500'000 - default_step(1, 10));
  CHECK((*saved < r.work || r.work % 500'000 == 0));  // the work since the periodic checkpoint is lost
}

TEST_CASE("Worker.Stop.before_the_gang_forms_exits_as_stopped") {
  WorkerConfig c = solo(1000, 1, 10);
  c.world_size = 2;
  c.master_addr = "127.0.0.1";
  c.master_port = 0;  // rank 0 on an ephemeral port; rank 1 never comes
  StopControl stop;
  stop.request();
  CHECK(run_worker(c, stop).outcome == WorkerOutcome::stopped);
}

// ---- periodic checkpoints -----------------------------------------------------------------------

TEST_CASE("Worker.Checkpoint.lands_at_multiples_of_the_interval_and_is_never_seen_half_written") {
  WorkerFolder dir("periodic");
  WorkerConfig c = solo(3'000'000, 1, 10);  // 300 ms
  c.checkpoint_interval = 250'000;          // every 25 ms
  c.step = 100'000;                         // steps that do not divide the interval: cut at its multiples
  c.checkpoint_dir = dir.ckpt();
  std::vector<std::int64_t> steps;
  WorkerHooks hooks;
  hooks.on_step = [&](std::int64_t w) { steps.push_back(w); };
  std::atomic<bool> done{false};
  std::vector<std::int64_t> seen;
  int bad = 0;
  std::thread reader([&] {
    while (!done) {
      try {
        if (auto v = read_checkpoint(dir.ckpt())) {
          if (*v % 250'000 != 0 || (!seen.empty() && *v < seen.back())) ++bad;
          if (seen.empty() || seen.back() != *v) seen.push_back(*v);
        }
      } catch (const std::exception&) {
        ++bad;
      }
    }
  });
  StopControl stop;
  const WorkerResult r = run_worker(c, stop, hooks);
  done = true;
  reader.join();
  CHECK(r.outcome == WorkerOutcome::finished);
  CHECK(bad == 0);
  CHECK(seen.size() >= 5);
  CHECK(read_checkpoint(dir.ckpt()) == 3'000'000);
  for (std::int64_t k = 250'000; k <= 3'000'000; k += 250'000)
    CHECK(std::find(steps.begin(), steps.end(), k) != steps.end());
  // After a cut step the step size resumes from the multiple: 250,000 then 350,000.
  CHECK(std::find(steps.begin(), steps.end(), 350'000) != steps.end());
}

// ---- gangs --------------------------------------------------------------------------------------

TEST_CASE("Worker.Gang.three_ranks_advance_in_lockstep_at_the_pace_of_the_slowest") {
  WorkerFolder dir("gang");
  constexpr int kRanks = 3;
  std::array<WorkerConfig, kRanks> cs;
  for (int r = 0; r < kRanks; ++r) {
    cs[r] = solo(3'000'000, r == 2 ? 1.0 : 2.0, 10);  // ranks 0 and 1 alone: 150 ms; rank 2: 300 ms
    cs[r].rank = static_cast<std::uint32_t>(r);
    cs[r].world_size = kRanks;
    cs[r].master_addr = "127.0.0.1";
    cs[r].job_id = "gang";
    cs[r].progress_file = dir.progress(r);
  }
  std::array<StopControl, kRanks> stops;
  std::array<std::vector<std::pair<double, std::int64_t>>, kRanks> steps;
  std::array<WorkerResult, kRanks> results;
  std::array<double, kRanks> took{};
  std::promise<std::uint16_t> port;
  const auto t0 = Clock::now();
  std::array<WorkerHooks, kRanks> hooks;
  for (int r = 0; r < kRanks; ++r) hooks[r].on_step = [&, r](std::int64_t w) { steps[r].emplace_back(seconds_since(t0), w); };
  hooks[0].on_listening = [&](std::uint16_t p) { port.set_value(p); };
  std::vector<std::thread> threads;
  threads.emplace_back([&] {
    results[0] = run_worker(cs[0], stops[0], hooks[0]);
    took[0] = seconds_since(t0);
  });
  const std::uint16_t p = port.get_future().get();
  for (int r = 1; r < kRanks; ++r) {
    cs[r].master_port = p;
    threads.emplace_back([&, r] {
      results[r] = run_worker(cs[r], stops[r], hooks[r]);
      took[r] = seconds_since(t0);
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < kRanks; ++r) {
    CAPTURE(r);
    CHECK(results[r].outcome == WorkerOutcome::finished);
    CHECK(file_text(dir.progress(r)) == "3000000\n");
    // Everyone is held to the slow rank's pace.
    CHECK(took[r] >= 0.9 * 0.3);
    CHECK(took[r] <= 3 * 0.3);
    // The same steps (rank 0's step size, 20 ms for the fast ranks), each passed only once the
    // slow rank finished it: never before its deadline.
    REQUIRE(steps[r].size() == steps[0].size());
    for (std::size_t k = 0; k < steps[r].size(); ++k) {
      CHECK(steps[r][k].second == steps[0][k].second);
      CHECK(steps[r][k].first >= 0.9 * static_cast<double>(steps[r][k].second) / 10.0 / 1e6);
    }
  }
  CHECK(steps[0].size() == 15);
}

TEST_CASE("Worker.Gang.a_killed_rank_makes_the_others_exit_4_within_the_peer_timeout") {
  WorkerFolder dir("killed");
  const std::uint16_t port = free_port();
  constexpr int kRanks = 3;
  std::array<pid_t, kRanks> pids{};
  for (int r = 0; r < kRanks; ++r) {
    pids[r] = ::fork();
    REQUIRE(pids[r] >= 0);
    if (pids[r] == 0) {
      int code = 1;
      try {
        WorkerConfig c = solo(1'000'000'000, 1, 10);
        c.rank = static_cast<std::uint32_t>(r);
        c.world_size = kRanks;
        c.master_addr = "127.0.0.1";
        c.master_port = port;
        c.job_id = "killed";
        c.peer_timeout = 300ms;
        c.rendezvous_timeout = 5000ms;
        c.progress_file = dir.progress(r);
        StopControl stop;
        code = worker_exit_code(run_worker(c, stop).outcome);
      } catch (...) {
        code = 1;
      }
      ::_exit(code);
    }
  }
  // The gang has formed once every rank wrote its progress file; then it runs a little.
  const auto launched = Clock::now();
  auto formed = [&] {
    for (int r = 0; r < kRanks; ++r)
      if (!fs::exists(dir.progress(r))) return false;
    return true;
  };
  while (!formed() && seconds_since(launched) < 10) std::this_thread::sleep_for(5ms);
  CHECK(formed());
  std::this_thread::sleep_for(200ms);
  REQUIRE(::kill(pids[1], SIGKILL) == 0);
  const auto killed = Clock::now();
  std::array<int, kRanks> status{};
  std::array<double, kRanks> after{};
  for (int r = 0; r < kRanks; ++r) {
    // Bounded wait, so that a regression fails instead of hanging the suite.
    for (;;) {
      const pid_t got = ::waitpid(pids[r], &status[r], WNOHANG);
      if (got == pids[r]) break;
      if (seconds_since(killed) > 5) {
        ::kill(pids[r], SIGKILL);
        ::waitpid(pids[r], &status[r], 0);
        break;
      }
      std::this_thread::sleep_for(5ms);
    }
    after[r] = seconds_since(killed);
  }
  CHECK(WIFSIGNALED(status[1]));
  for (int r : {0, 2}) {
    CAPTURE(r);
    REQUIRE(WIFEXITED(status[r]));
    CHECK(WEXITSTATUS(status[r]) == kWorkerExitGangBroken);
    // They stall for the peer timeout (300 ms), then exit: within the bound, not at once.
    CHECK(after[r] >= 0.25);
    CHECK(after[r] < 2.0);
  }
}

namespace {

// Plays rank 1 of a gang of two by hand: joins rank 0, finishes round 0, then vanishes without a
// word, as a killed process does.
void join_then_vanish(std::uint16_t port, const std::string& hello) {
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket s(io);
  s.connect({boost::asio::ip::make_address("127.0.0.1"), port});
  boost::asio::streambuf in;
  auto line = [&] {
    boost::asio::read_until(s, in, '\n');
    std::istream is(&in);
    std::string l;
    std::getline(is, l);
    return l;
  };
  boost::asio::write(s, boost::asio::buffer(hello + "\n"));
  REQUIRE(line().rfind("start ", 0) == 0);
  boost::asio::write(s, boost::asio::buffer(std::string("arrive 0\n")));
  REQUIRE(line() == "go 0");
}

}  // namespace

TEST_CASE("Worker.Gang.a_stop_while_the_gang_is_broken_saves_nothing") {
  WorkerFolder dir("brokenstop");
  WorkerConfig zero = solo(1'000'000'000, 1, 10);
  zero.world_size = 2;
  zero.master_addr = "127.0.0.1";
  zero.job_id = "b";
  zero.checkpoint_dir = dir.ckpt();
  zero.peer_timeout = 5000ms;
  zero.save = 1'000'000;
  StopControl stop;
  std::promise<std::uint16_t> port;
  WorkerHooks hooks;
  hooks.on_listening = [&](std::uint16_t p) { port.set_value(p); };
  WorkerResult r;
  std::thread t([&] { r = run_worker(zero, stop, hooks); });
  join_then_vanish(port.get_future().get(), "hello - b 2 1 work=1000000000,interval=0,gpus=0");
  std::this_thread::sleep_for(200ms);  // rank 0 has noticed by now and stalls (for up to 5 s)
  stop.request();
  const auto asked = Clock::now();
  t.join();
  CHECK(r.outcome == WorkerOutcome::gang_broken);
  CHECK(r.why.find("rank 1 disconnected") != std::string::npos);
  CHECK(seconds_since(asked) < 1.0);                 // the stall ends at the request, not after 5 s
  CHECK_FALSE(read_checkpoint(dir.ckpt()).has_value());  // and nothing was saved
}

TEST_CASE("Worker.Gang.a_graceful_stop_of_one_rank_stops_the_whole_gang_and_rank_0_saves") {
  // Only rank 2 is asked, and it saves in no time: the others must not take its leaving for a
  // failure, and rank 0 must save what the gang finished.
  WorkerFolder dir("gangstop");
  constexpr int kRanks = 3;
  std::array<WorkerConfig, kRanks> cs;
  for (int r = 0; r < kRanks; ++r) {
    cs[r] = solo(1'000'000'000, 1, 10);
    cs[r].rank = static_cast<std::uint32_t>(r);
    cs[r].world_size = kRanks;
    cs[r].master_addr = "127.0.0.1";
    cs[r].job_id = "s";
    cs[r].save = 0;
    cs[r].peer_timeout = 5000ms;
  }
  cs[0].checkpoint_dir = dir.ckpt();
  std::array<StopControl, kRanks> stops;
  std::array<WorkerResult, kRanks> results;
  std::array<WorkerHooks, kRanks> hooks;
  std::promise<std::uint16_t> port;
  std::atomic<std::int64_t> last{0};
  hooks[0].on_listening = [&](std::uint16_t p) { port.set_value(p); };
  hooks[0].on_step = [&](std::int64_t w) { last = w; };
  std::vector<std::thread> threads;
  threads.emplace_back([&] { results[0] = run_worker(cs[0], stops[0], hooks[0]); });
  const std::uint16_t p = port.get_future().get();
  for (int r = 1; r < kRanks; ++r) {
    cs[r].master_port = p;
    threads.emplace_back([&, r] { results[r] = run_worker(cs[r], stops[r], hooks[r]); });
  }
  while (last < 1'000'000) std::this_thread::sleep_for(5ms);
  const auto asked = Clock::now();
  stops[2].request();
  for (auto& t : threads) t.join();
  for (int r = 0; r < kRanks; ++r) {
    CAPTURE(r);
    CHECK(results[r].outcome == WorkerOutcome::stopped);
    // Each rank stops within a step of the others (a release may cross the stop on the wire).
    CHECK(std::abs(results[r].work - results[0].work) <= default_step(1, 10));
  }
  CHECK(seconds_since(asked) < 1.0);
  CHECK(read_checkpoint(dir.ckpt()) == results[0].work);
  CHECK(results[0].work >= 1'000'000);
}

// ---- GPU steps ----------------------------------------------------------------------------------

namespace {

// Stands for the GPUs: records what the worker asks of it.
class FakeGpuStep final : public calib::GpuStep {
 public:
  int local_gpus() const override { return 2; }
  double gemm_flops() const override { return 0; }
  std::string new_gang_id() override { return "abc123"; }
  void join(const std::string& id, int rank, int world) override {
    std::lock_guard lock(m);
    joined_id = id;
    joined_rank = rank;
    joined_world = world;
  }
  bool run(const std::function<bool()>& keep_waiting) override {
    ++runs;
    std::this_thread::sleep_for(2ms);
    return keep_waiting();
  }
  std::mutex m;
  std::string joined_id;
  int joined_rank = -1, joined_world = -1;
  std::atomic<int> runs{0};
};

}  // namespace

TEST_CASE("Worker.Gpu.runs_one_gpu_step_per_step_and_hands_rank_0s_communicator_id_to_the_gang") {
  std::array<FakeGpuStep, 2> gpus;
  std::array<WorkerConfig, 2> cs;
  for (int r = 0; r < 2; ++r) {
    cs[r] = solo(1000, 1, 1);
    cs[r].step = 100;  // ten GPU steps
    cs[r].rank = static_cast<std::uint32_t>(r);
    cs[r].world_size = 2;
    cs[r].master_addr = "127.0.0.1";
    cs[r].gpu = true;
  }
  std::array<StopControl, 2> stops;
  std::array<WorkerHooks, 2> hooks;
  std::array<WorkerResult, 2> results;
  std::promise<std::uint16_t> port;
  hooks[0].on_listening = [&](std::uint16_t p) { port.set_value(p); };
  for (int r = 0; r < 2; ++r) hooks[r].gpu = &gpus[r];
  std::thread t0([&] { results[0] = run_worker(cs[0], stops[0], hooks[0]); });
  cs[1].master_port = port.get_future().get();
  std::thread t1([&] { results[1] = run_worker(cs[1], stops[1], hooks[1]); });
  t0.join();
  t1.join();
  for (int r = 0; r < 2; ++r) {
    CAPTURE(r);
    CHECK(results[r].outcome == WorkerOutcome::finished);
    CHECK(gpus[r].runs == 10);
    CHECK(gpus[r].joined_id == "abc123");
    CHECK(gpus[r].joined_rank == r);
    CHECK(gpus[r].joined_world == 2);
  }
}

TEST_CASE("Worker.Gpu.without_a_gpu_or_cuda_fails_in_one_line_saying_so") {
  calib::GpuStepOptions o;
  o.gemm_flops = 1e9;
  o.allreduce_bytes = 1 << 20;
  try {
    auto step = calib::open_gpu_step(o);
    MESSAGE("a GPU is present: the no-GPU path does not apply here");
  } catch (const util::EnvironmentError& e) {
    const std::string what = e.what();
    CHECK(what.rfind("worker --gpu: ", 0) == 0);
    CHECK(what.find("no CUDA") != std::string::npos);
    CHECK(what.find('\n') == std::string::npos);
  }
}
