// Agents in, commands out: registration, held polls, reports, heartbeat deadlines.
#include "emu/controller/controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <unordered_set>

namespace schedlab::emu {

namespace {
std::string host_name(cluster::HostId h) { return fmt::format("h{}", h); }

// "127.0.0.1:53412" -> "127.0.0.1"; "[::1]:53412" -> "::1".
std::string ip_of(const std::string& remote) {
  auto colon = remote.rfind(':');
  std::string ip = colon == std::string::npos ? remote : remote.substr(0, colon);
  if (ip.size() >= 2 && ip.front() == '[' && ip.back() == ']') ip = ip.substr(1, ip.size() - 2);
  return ip.empty() ? "127.0.0.1" : ip;
}
}  // namespace

Controller::Controller(const cluster::Topology& topo, ControllerOptions options)
    : topo_(topo), options_(std::move(options)), agents_(topo.hosts().size()) {
  for (cluster::HostId h = 0; h < topo.hosts().size(); ++h) host_by_name_.emplace(host_name(h), h);
  router_.add("POST", "/v1/agents/register",
              [this](const HttpRequest& r, const RouteParams&, Responder resp) { on_register(r, std::move(resp)); });
  router_.add("POST", "/v1/agents/poll",
              [this](const HttpRequest& r, const RouteParams&, Responder resp) { on_poll(r, std::move(resp)); });
  router_.add("POST", "/v1/agents/report",
              [this](const HttpRequest& r, const RouteParams&, Responder resp) { on_report(r, std::move(resp)); });
}

Controller::~Controller() { stop(); }

void Controller::log(const std::string& line) const {
  if (options_.log) options_.log(line);
}

void Controller::start() {
  HttpServerOptions so;
  so.address = options_.address;
  so.port = options_.port;
  so.token = options_.token;
  so.open_paths = options_.open_paths;
  server_ = std::make_unique<HttpServer>(so, router_.handler(), [this](const std::string& l) { log(l); });
  server_->start();
  ticker_ = std::thread([this] {
    while (!stopping_) {
      tick();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
}

void Controller::stop() {
  if (stopping_.exchange(true)) return;
  if (ticker_.joinable()) ticker_.join();
  if (server_) server_->stop();
}

void Controller::on_register(const HttpRequest& req, Responder respond) {
  auto parsed = parse_register_request(req.body);
  if (!parse_or_refuse(parsed, respond)) return;
  auto& m = parsed.value();
  auto it = host_by_name_.find(m.host);
  if (it == host_by_name_.end()) {
    respond(error_response(409, fmt::format("host '{}' is not in the cluster (hosts are h0..h{})", m.host,
                                            topo_.hosts().size() - 1)));
    return;
  }
  const cluster::HostId h = it->second;
  const auto want = topo_.host(h).gpus;
  if (m.gpus.size() != want) {
    respond(error_response(409, fmt::format("host '{}' has {} GPUs in the cluster, the agent offers {}", m.host,
                                            want, m.gpus.size())));
    return;
  }
  RegisterResponse out;
  bool was_lost = false;
  std::vector<TaskReport> gone;  // given to an earlier incarnation, not listed now: dead
  {
    std::lock_guard lock(mu_);
    auto& a = agents_[h];
    std::unordered_set<std::string> listed;
    // Running, or ended and not yet acknowledged (after the controller itself restarted).
    for (const auto& t : m.tasks) listed.insert(t.task);
    for (const auto& name : a.delivered)
      if (!listed.count(name)) {
        TaskReport r;
        r.task = name;
        r.state = TaskState::signaled;
        r.signal = 9;
        gone.push_back(std::move(r));
      }
    std::sort(gone.begin(), gone.end(), [](const auto& x, const auto& y) { return x.task < y.task; });
    a.delivered = std::move(listed);
    a.running_told.clear();
    for (const auto& t : m.tasks)
      if (t.state == TaskState::running) a.running_told.insert(t.task);
    if (a.held) (*a.held)(json_response(409, error_json("superseded by a new registration")));
    a.held.reset();
    // An agent that registers again while this controller runs lost its host for a while (or was
    // restarted): the simulation it is compared with saw neither.
    if (!a.agent_id.empty()) reregistrations_.fetch_add(1);
    a.agent_id = fmt::format("{}-{}", m.host, ++incarnation_);
    a.address = ip_of(req.remote);
    a.last_seen = std::chrono::steady_clock::now();
    was_lost = a.lost;
    a.lost = false;
    out.agent_id = a.agent_id;
    out.heartbeat_interval_ms = options_.heartbeat_interval_ms;
    out.heartbeat_timeout_ms = options_.heartbeat_timeout_ms;
  }
  registered_.notify_all();
  log(fmt::format("agent {} registered from {} ({} task(s) listed)", m.host, req.remote, m.tasks.size()));
  if (was_lost) inbox_->post(HostBackInput{h});
  if (!gone.empty()) {
    log(fmt::format("agent {} no longer runs {} task(s) it was given: they died with its previous incarnation",
                    m.host, gone.size()));
    deliver(h, std::move(gone));
  }
  if (!m.tasks.empty()) deliver(h, std::move(m.tasks));
  respond(json_response(200, to_json(out)));
}

Controller::Agent* Controller::heard_from(const std::string& host, const std::string& agent_id,
                                          std::vector<TaskReport>& reports, const Responder& respond) {
  auto it = host_by_name_.find(host);
  if (it == host_by_name_.end() || agents_[it->second].agent_id != agent_id || agents_[it->second].lost) {
    respond(error_response(409, "unknown or stale agent: register again"));
    return nullptr;
  }
  auto& a = agents_[it->second];
  a.last_seen = std::chrono::steady_clock::now();
  std::erase_if(reports, [&](const TaskReport& r) {
    if (r.state == TaskState::running) return !a.running_told.insert(r.task).second;
    a.delivered.erase(r.task);
    a.running_told.erase(r.task);
    return false;
  });
  return &a;
}

void Controller::expect(cluster::HostId host, std::vector<std::string> tasks) {
  std::lock_guard lock(mu_);
  auto& a = agents_.at(host);
  a.delivered.insert(std::make_move_iterator(tasks.begin()), std::make_move_iterator(tasks.end()));
}

void Controller::on_poll(const HttpRequest& req, Responder respond) {
  auto parsed = parse_poll_request(req.body);
  if (!parse_or_refuse(parsed, respond)) return;
  auto& m = parsed.value();
  std::lock_guard lock(mu_);
  Agent* found = heard_from(m.host, m.agent_id, m.reports, respond);
  if (!found) return;
  auto& a = *found;
  // The news reaches the loop before the poll can be answered: an agent that hears back knows
  // the controller has its reports.
  deliver(static_cast<cluster::HostId>(found - agents_.data()), std::move(m.reports));
  if (a.held) (*a.held)(json_response(200, to_json(PollResponse{})));
  a.held = std::move(respond);
  a.held_until = a.last_seen + std::chrono::milliseconds(std::min(m.wait_ms, options_.heartbeat_interval_ms));
  flush(a);
}

void Controller::on_report(const HttpRequest& req, Responder respond) {
  auto parsed = parse_report_request(req.body);
  if (!parse_or_refuse(parsed, respond)) return;
  auto& m = parsed.value();
  cluster::HostId host = 0;
  {
    std::lock_guard lock(mu_);
    Agent* found = heard_from(m.host, m.agent_id, m.reports, respond);
    if (!found) return;
    host = static_cast<cluster::HostId>(found - agents_.data());
  }
  deliver(host, std::move(m.reports));
  respond(json_response(200, ok_json()));
}

void Controller::deliver(cluster::HostId host, std::vector<TaskReport> reports) {
  for (auto& r : reports) inbox_->post(ReportInput{host, std::move(r)});
}

void Controller::flush(Agent& a) {
  if (!a.held || a.outbox.empty()) return;
  PollResponse out;
  out.commands.assign(std::make_move_iterator(a.outbox.begin()), std::make_move_iterator(a.outbox.end()));
  for (const auto& c : out.commands)
    if (const auto* l = std::get_if<LaunchCommand>(&c)) a.delivered.insert(l->task);
  a.outbox.clear();
  (*a.held)(json_response(200, to_json(out)));
  a.held.reset();
  a.last_seen = std::chrono::steady_clock::now();
}

void Controller::send(cluster::HostId host, Command command) {
  std::lock_guard lock(mu_);
  auto& a = agents_[host];
  a.outbox.push_back(std::move(command));
  flush(a);
}

std::string Controller::address_of(cluster::HostId host) const {
  std::lock_guard lock(mu_);
  return agents_[host].address.empty() ? "127.0.0.1" : agents_[host].address;
}

void Controller::tick() {
  const auto now = std::chrono::steady_clock::now();
  std::vector<cluster::HostId> lost;
  {
    std::lock_guard lock(mu_);
    for (cluster::HostId h = 0; h < agents_.size(); ++h) {
      auto& a = agents_[h];
      if (a.held && now >= a.held_until) {
        (*a.held)(json_response(200, to_json(PollResponse{})));
        a.held.reset();
        a.last_seen = now;  // it was there all along, waiting: its deadline counts from here
      }
      if (a.agent_id.empty() || a.lost || a.held) continue;
      if (now - a.last_seen > std::chrono::milliseconds(options_.heartbeat_timeout_ms)) {
        a.lost = true;
        a.outbox.clear();  // what it was told is void: its tasks fail with it
        a.delivered.clear();
        a.running_told.clear();
        lost.push_back(h);
      }
    }
  }
  for (auto h : lost) {
    log(fmt::format("agent {} missed its heartbeat deadline ({} ms): host lost", host_name(h),
                    options_.heartbeat_timeout_ms));
    inbox_->post(HostLostInput{h});
  }
}

bool Controller::wait_for_agents(std::chrono::milliseconds timeout, std::string& missing) {
  std::unique_lock lock(mu_);
  auto all = [&] {
    for (const auto& a : agents_)
      if (a.agent_id.empty()) return false;
    return true;
  };
  if (registered_.wait_for(lock, timeout, all)) return true;
  missing.clear();
  std::size_t n = 0;
  for (cluster::HostId h = 0; h < agents_.size(); ++h)
    if (agents_[h].agent_id.empty() && n++ < 8) missing += (missing.empty() ? "" : ", ") + host_name(h);
  if (n > 8) missing += fmt::format(" and {} more", n - 8);
  return false;
}

void Controller::shutdown_agents() {
  std::lock_guard lock(mu_);
  for (auto& a : agents_) {
    if (a.agent_id.empty() || a.lost) continue;
    a.outbox.emplace_back(std::in_place_type<ShutdownCommand>);
    flush(a);
  }
}

std::string Controller::agent_state(cluster::HostId host) const {
  std::lock_guard lock(mu_);
  const auto& a = agents_.at(host);
  return a.agent_id.empty() ? "absent" : a.lost ? "lost" : "up";
}

std::vector<bool> Controller::hosts_up() const {
  std::lock_guard lock(mu_);
  std::vector<bool> up;
  for (const auto& a : agents_) up.push_back(!a.agent_id.empty() && !a.lost);
  return up;
}

bool Controller::hosts_lost() const {
  std::lock_guard lock(mu_);
  for (const auto& a : agents_)
    if (a.lost) return true;
  return false;
}

}  // namespace schedlab::emu
