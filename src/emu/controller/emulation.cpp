// Wiring an emulation: clock, controller, executor, agents; its own figures after the run.
#include "emu/controller/emulation.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "emu/controller/api.h"
#include "emu/controller/live_routes.h"
#include "emu/endpoint.h"
#include "metrics/summary.h"
#include "util/checked.h"
#include "util/error.h"

namespace schedlab::emu {

namespace {
// An emulation's identity for its gangs' rendezvous: 64 random bits, so that two emulations on
// one machine (or one resumed after a kill, beside its predecessor's last gangs) never share one.
// Not a secret against the machine's other users (it is in the tasks' environment, which only
// their user can read), not a result either: it comes from the system's entropy, not the seed.
std::string new_emulation_id() {
  std::random_device rd;
  const std::uint64_t v = (std::uint64_t{rd()} << 32) ^ rd();
  return fmt::format("{:016x}", v);
}

// p50 or p99 of figures in any order (metrics::percentile wants them sorted).
double percentile_of(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return metrics::percentile(v, p);
}
}  // namespace

bool is_loopback(const std::string& a) { return a == "::1" || a == "localhost" || a.rfind("127.", 0) == 0; }

std::string self_executable() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw util::EnvironmentError("cannot find the schedlab binary (/proc/self/exe): " + ec.message());
  return p.string();
}

Emulation::Emulation(EmulationOptions options, util::Notices& notices)
    : options_(std::move(options)), notices_(notices) {
  if (!(options_.speedup > 0 && options_.speedup <= 1e6))
    throw util::InputError(fmt::format("--speedup: must be in (0, 1e6], got {}", options_.speedup));
  listen_ = parse_endpoint(options_.listen, "--listen", true);
  if (listen_.host == "localhost") listen_.host = "127.0.0.1";
  const std::string& address = listen_.host;
  if (!options_.token_file.empty()) token_ = read_token_file(options_.token_file, "--token-file", notices_);
  if (!is_loopback(address) && token_.empty())
    throw util::InputError(fmt::format(
        "--listen: {} is not a loopback address: give --token-file too (agents and API calls must then carry the "
        "token)",
        address));
}

Emulation::~Emulation() {
  {
    std::lock_guard lock(plan_mu_);
    plan_stop_ = true;
  }
  plan_wake_.notify_all();
  if (plan_.joinable()) plan_.join();
  if (agents_) agents_->stop(std::chrono::milliseconds(0));
  if (controller_) controller_->stop();
  if (own_work_dir_ && !options_.keep_work) {
    std::error_code ec;
    std::filesystem::remove_all(work_dir_, ec);
  }
}

sim::RunHooks Emulation::hooks(const config::Scenario& scenario, std::function<void(const std::string&)> announce) {
  announce_ = std::move(announce);
  scenario_ = &scenario;
  sim::RunHooks h;
  h.drive = [this](const cluster::Topology& topo, perf::PerfModel& perf) {
    return drive(topo, perf, scenario_->lifecycle.config);
  };
  h.finish = [this](const sim::RunHooks::PathOf& path_of, const metrics::Collector& collector,
                    const metrics::Summary& summary) { finish(path_of, collector, summary); };
  return h;
}

void Emulation::resume_from(Journal journal, bool temporary_work_dir) {
  resume_ = std::move(journal);
  own_work_dir_ = temporary_work_dir;
}

sim::Driver Emulation::drive(const cluster::Topology& topo, perf::PerfModel& perf,
                             const lifecycle::LifecycleConfig& lifecycle) {
  if (perf.shares_links())
    throw util::InputError(
        fmt::format("perf model '{}': speeds that change while a run goes (shared links) are not "
                    "emulated; use a model without link sharing",
                    perf.name()));
  if (!options_.gpus.empty()) {
    if (options_.external_agents)
      throw util::InputError("--gpus: the agents of --external-agents name their own GPUs (schedlab agent --gpus)");
    real_gpus_ = assign_real_gpus(topo, options_.gpus, options_.gpu_profile);
  }
  if (resume_) {
    work_dir_ = options_.work_dir;
  } else if (options_.work_dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = fmt::format("{}/schedlab-emulate-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(templ.data())) throw util::EnvironmentError("cannot create a work folder under " + templ);
    work_dir_ = templ;
    own_work_dir_ = true;
  } else {
    work_dir_ = options_.work_dir;
    std::filesystem::create_directories(work_dir_);
  }
  std::filesystem::create_directories(work_dir_ + "/checkpoints");
  std::filesystem::permissions(work_dir_ + "/checkpoints", std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::replace);
  const auto& [address, port] = listen_;
  clock_ = std::make_unique<WallClock>(options_.speedup, [this] {
    return (executor_ && executor_->live()) || (controller_ && controller_->hosts_lost());
  });
  ControllerOptions co;
  co.address = address;
  co.port = port;
  co.token = token_;
  co.open_paths = live_open_paths();
  co.heartbeat_timeout_ms = options_.heartbeat_timeout_ms;
  // A poll is held at most half the deadline: an agent always polls again well within it.
  co.heartbeat_interval_ms = std::min<std::uint32_t>(1000, options_.heartbeat_timeout_ms / 2);
  co.log = [](const std::string& line) { fmt::print(stderr, "schedlab emulate: {}\n", line); };
  controller_ = std::make_unique<Controller>(topo, co);
  EmuExecutorOptions eo;
  eo.speedup = options_.speedup;
  eo.self_exe = self_executable();
  eo.checkpoint_root = work_dir_ + "/checkpoints";
  eo.lifecycle = lifecycle;
  eo.emulation_id = new_emulation_id();
  if (real_gpus_) eo.gpu = real_gpus_->steps;
  executor_ = std::make_unique<EmuExecutor>(topo, perf, *controller_, eo);
  executor_hosts_ = topo.hosts().size();
  inbox_ = std::make_unique<Inbox>(*clock_, *executor_);
  controller_->attach(*inbox_);
  add_api_routes(controller_->router(), *clock_, *inbox_, topo,
                 [this](cluster::HostId h) { return controller_->agent_state(h); });
  add_live_routes(controller_->router(), *clock_, *executor_, topo,
                  [this](cluster::HostId h) { return controller_->agent_state(h); });
  const std::string journal_path = work_dir_ + "/journal.jsonl";
  if (!resume_) {
    connect(topo, false);
    auto options = options_.journal_options;
    options["listen"] = fmt::format("{}:{}", address.find(':') != std::string::npos ? "[" + address + "]" : address,
                                     controller_->port());
    options["work_dir"] = std::filesystem::absolute(work_dir_).string();
    options["temporary_work_dir"] = own_work_dir_;
    journal_.emplace(JournalWriter::create(journal_path, options));
    wire_journal(false);
    if (!scenario_->emulation.kills.empty()) plan_ = std::thread([this] { run_plan(false); });
    return sim::Driver{clock_.get(), executor_.get()};
  }
  // Resumed: replay first (no commands go out), then hand over to the wall clock.
  journal_.emplace(JournalWriter::append(journal_path));
  wire_journal(resume_->anchor.has_value());
  executor_->set_replaying(true);
  fmt::print(stderr, "schedlab emulate: replaying the journal {} ({} instants with inputs)\n", journal_path,
             resume_->batches.size());
  replay_ = std::make_unique<JournalClock>(
      std::move(resume_->batches),
      [this](const OutsideInput& in, engine::Time now, sim::OutsideEvents& outside) {
        apply_input(in, now, *executor_, outside);
      },
      [this, &topo](engine::Time last) { handover(topo, last); }, *clock_);
  return sim::Driver{replay_.get(), executor_.get()};
}

void Emulation::wire_journal(bool clock_known) {
  inbox_->journal_to(&*journal_);
  clock_->on_batch_done([this](engine::Time at) { journal_->end_batch(at); });
  if (clock_known) return;
  clock_->on_start([this](engine::Time origin, std::chrono::system_clock::time_point wall) {
    journal_->clock_started(ClockAnchor{
        origin, std::chrono::duration_cast<std::chrono::microseconds>(wall.time_since_epoch()).count()});
  });
}

void Emulation::connect(const cluster::Topology& topo, bool adopting) {
  const auto& address = listen_.host;
  controller_->start();
  const std::string where = fmt::format("{}:{}", address.find(':') != std::string::npos ? "[" + address + "]" : address,
                                        controller_->port());
  if (announce_)
    announce_(fmt::format("controller listening on {} (work folder {}; after a crash: schedlab emulate --resume {})",
                          where, work_dir_, work_dir_));
  if (!options_.external_agents) {
    LocalAgentsOptions lo;
    lo.self_exe = self_executable();
    lo.controller = fmt::format("{}:{}", is_loopback(address) || address == "0.0.0.0" ? "127.0.0.1" : address,
                                controller_->port());
    lo.token_file = options_.token_file;
    lo.work_dir = work_dir_;
    if (real_gpus_) lo.real_gpus = real_gpus_->per_host;
    agents_ = std::make_unique<LocalAgents>(topo, lo);
    std::vector<bool> adopted;
    if (adopting) {
      std::string missing;
      controller_->wait_for_agents(options_.adopt_wait, missing);
      adopted = controller_->hosts_up();
      std::size_t n = 0;
      for (bool up : adopted) n += up ? 1 : 0;
      fmt::print(stderr, "schedlab emulate: {} of {} agents came back; starting the others\n", n, adopted.size());
    }
    agents_->start(adopted);
  }
  std::string missing;
  if (!controller_->wait_for_agents(options_.agents_timeout, missing))
    throw util::EnvironmentError(fmt::format("no agent registered within {} s for host(s) {}",
                                             static_cast<double>(options_.agents_timeout.count()) / 1000.0, missing));
  started_ = std::chrono::steady_clock::now();
}

void Emulation::handover(const cluster::Topology& topo, engine::Time last) {
  executor_->set_replaying(false);
  // The agents' answer to what the loop believes runs: listed tasks are adopted, exits they
  // kept are delivered, and the rest died while no controller listened.
  for (cluster::HostId h = 0; h < topo.hosts().size(); ++h) controller_->expect(h, executor_->tasks_on(h));
  if (resume_->anchor) {
    const auto wall = std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(
            std::chrono::microseconds(resume_->anchor->unix_us)));
    clock_->resume(resume_->anchor->origin, wall, last);
  }
  connect(topo, true);
  executor_->kill_stopped_again();
  fmt::print(stderr, "schedlab emulate: journal replayed; running on from trace time {:.3f} s\n",
             engine::to_seconds(std::max<engine::Time>(last, 0)));
  if (!scenario_->emulation.kills.empty()) plan_ = std::thread([this] { run_plan(true); });
}

void Emulation::run_plan(bool skip_past) {
  std::mt19937_64 rng(scenario_->seed ^ 0x6b696c6cULL);  // targets left open: drawn from the seed
  std::unique_lock lock(plan_mu_);
  while (!plan_stop_ && !clock_->started()) plan_wake_.wait_for(lock, std::chrono::milliseconds(5));
  const auto plan_start = std::chrono::steady_clock::now();
  for (const auto& k : scenario_->emulation.kills) {
    const std::uint64_t draw = rng();  // drawn for every entry, so a resumed plan draws the same
    if (skip_past && clock_->wall_of(k.at) < plan_start) continue;
    if (plan_wake_.wait_until(lock, clock_->wall_of(k.at), [this] { return plan_stop_; })) return;
    if (k.what == config::PlannedKill::What::agent) {
      const auto host = static_cast<cluster::HostId>(k.host != config::kAnyTarget ? k.host
                                                                                  : draw % executor_hosts_);
      if (!agents_) {
        fmt::print(stderr, "schedlab emulate: failure plan: agents are external; not killing h{}'s\n", host);
        continue;
      }
      fmt::print(stderr, "schedlab emulate: failure plan: SIGKILL to the agent of h{}\n", host);
      agents_->kill_agent(host);
      ++planned_kills_;
      ++planned_agent_kills_;
      continue;
    }
    clock_->post([this, k, draw](engine::Time, sim::OutsideEvents&) {
      const std::string task = executor_->kill_task(k.job, k.rank, draw);
      if (task.empty()) return;
      fmt::print(stderr, "schedlab emulate: failure plan: SIGKILL to task {}\n", task);
      ++planned_kills_;
    });
  }
}

void Emulation::finish(const sim::RunHooks::PathOf& path_of, const metrics::Collector& collector,
                       const metrics::Summary& summary) {
  stats_.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  {
    std::lock_guard lock(plan_mu_);
    plan_stop_ = true;
  }
  plan_wake_.notify_all();
  if (plan_.joinable()) plan_.join();
  stats_.planned_kills = planned_kills_;
  if (journal_) journal_->sync();
  controller_->shutdown_agents();
  if (agents_) {
    agents_->stop();
    stats_.agent_restarts = agents_->restarts();
  }
  controller_->stop();
  std::vector<double> lag_ms;
  for (double us : clock_->lag_us()) lag_ms.push_back(us / 1000.0);
  stats_.clock_lag_p50_ms = percentile_of(lag_ms, 50);
  stats_.clock_lag_p99_ms = percentile_of(lag_ms, 99);
  stats_.start_latency_p50_ms = percentile_of(executor_->start_latency_ms(), 50);
  stats_.start_latency_p99_ms = percentile_of(executor_->start_latency_ms(), 99);
  // The same scenario and seed, simulated: what the emulation is measured against. Its
  // failure model stays off, as in the emulation (failures there are real ones).
  config::Scenario simulated = *scenario_;
  simulated.lifecycle.failures = {};
  RunRecords sim_records;
  sim::RunHooks capture;
  capture.finish = [&](const sim::RunHooks::PathOf&, const metrics::Collector& c, const metrics::Summary& s) {
    sim_records = records_of(c, s);
  };
  if (!options_.simulate) throw std::logic_error("emulation: no simulate hook to run the twin with");
  options_.simulate(simulated, capture);
  fidelity_ = compare_runs(records_of(collector, summary), sim_records);
  fidelity_.clock_lag_p50_ms = stats_.clock_lag_p50_ms;
  fidelity_.clock_lag_p99_ms = stats_.clock_lag_p99_ms;
  fidelity_.start_latency_p50_ms = stats_.start_latency_p50_ms;
  fidelity_.start_latency_p99_ms = stats_.start_latency_p99_ms;
  stats_.agent_reregistrations = controller_->reregistrations();
  EmulationHealth health;
  health.speedup = options_.speedup;
  health.clock_lag_p99_ms = stats_.clock_lag_p99_ms;
  health.reregistrations = stats_.agent_reregistrations;
  health.agent_restarts = stats_.agent_restarts;
  health.planned_agent_kills = planned_agent_kills_;
  health.planned_worker_kills = planned_kills_ - planned_agent_kills_;
  judge_fidelity(fidelity_, health);
  if (!path_of) return;
  {
    std::ofstream out(path_of("fidelity.json"));
    write_fidelity_json(out, fidelity_);
    std::ofstream csv(path_of("fidelity.csv"));
    write_fidelity_csv(csv, fidelity_);
    if (!out || !csv) throw util::EnvironmentError("cannot write the fidelity report into " + path_of(""));
  }
  // Wall-clock figures: unlike the other results, they differ from one emulation to the next.
  nlohmann::json j = {{"speedup", options_.speedup},
                      {"wall_s", stats_.wall_s},
                      {"clock_lag_ms", {{"p50", stats_.clock_lag_p50_ms}, {"p99", stats_.clock_lag_p99_ms}}},
                      {"scheduling_latency_ms",
                       {{"p50", stats_.start_latency_p50_ms}, {"p99", stats_.start_latency_p99_ms}}},
                      {"agent_restarts", stats_.agent_restarts},
                      {"agent_reregistrations", stats_.agent_reregistrations},
                      {"planned_kills", stats_.planned_kills}};
  std::ofstream out(path_of("emulation.json"));
  out << j.dump(2) << "\n";
  if (!out) throw util::EnvironmentError("cannot write " + path_of("emulation.json"));
}

}  // namespace schedlab::emu
