// Messages are built and read with nlohmann-json; a tick's events are kept as JSON values
// as they happen, so a tick costs one dump and one parse.
#include "sched/external/external_policy.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>

#include "util/error.h"
#include "util/json_read.h"
#include "util/text.h"

namespace schedlab::sched {

using nlohmann::json;

namespace {
constexpr int kProtocol = 1;

// A decision as the policy wrote it, cut short for a one-line report.
std::string excerpt(const json& j) {
  std::string s = j.dump();
  if (s.size() > 200) s = s.substr(0, 197) + "...";
  return s;
}

double seconds(engine::Time t) { return engine::to_seconds(t); }
}  // namespace

ExternalPolicy::ExternalPolicy(const ExternalConfig& config, const cluster::Topology& topo)
    : config_(config), topo_(&topo) {
  json hosts = json::array();
  for (cluster::HostId h = 0; h < topo.hosts().size(); ++h) {
    const auto& info = topo.host(h);
    host_names_.push_back(fmt::format("h{}", h));
    host_ids_[host_names_.back()] = h;
    hosts.push_back({{"name", host_names_.back()},
                     {"rack", topo.rack(info.rack).name},
                     {"model", info.gpus ? json(topo.catalog().model(info.model).name) : json(nullptr)},
                     {"gpus", info.gpus},
                     {"cpus", info.cpu_milli / 1000.0},
                     {"mem_gb", info.mem_mib / 1024.0}});
  }
  json options;
  try {
    options = util::parse_json(config_.options_json);
  } catch (const util::JsonReadError&) {
    options = json::object();  // the YAML options converted by schedlab itself: none to pass on
  }
  json hello = {{"type", "hello"},
                {"protocol", kProtocol},
                {"schedlab", SCHEDLAB_VERSION},
                {"options", std::move(options)},
                {"cluster", {{"hosts", std::move(hosts)}}}};
  if (config_.channel)
    process_ = config_.channel();
  else
    process_ = std::make_unique<PolicyProcess>(config_.command, config_);
  process_->send(hello.dump());
  const json reply = read_message("hello");
  if (!reply.contains("protocol") || reply["protocol"] != kProtocol)
    protocol_error(fmt::format("its hello says protocol {}, schedlab speaks {}",
                               reply.contains("protocol") ? reply["protocol"].dump() : "(none)", kProtocol));
  if (reply.contains("state")) {
    const auto& s = reply["state"];
    if (s == "full")
      full_state_ = true;
    else if (s != "changes")
      protocol_error(fmt::format("its hello asks for state {}: expected \"changes\" or \"full\"", s.dump()));
  }
}

ExternalPolicy::~ExternalPolicy() {
  try {
    process_->send(R"({"type":"bye"})");
  } catch (const util::InputError&) {
    // It is gone already: nothing to say goodbye to.
  }
  process_->finish();
}

void ExternalPolicy::protocol_error(const std::string& what) const {
  throw util::InputError(config_.file, config_.line, config_.field, fmt::format("'{}': {}", config_.command, what));
}

json ExternalPolicy::read_message(const char* expected) {
  const std::string line = process_->receive(config_.timeout_s);
  json m;
  const std::string shown = line.size() > 120 ? line.substr(0, 117) + "..." : line;
  try {
    m = util::parse_json(line);
  } catch (const util::JsonReadError& e) {
    protocol_error(
        fmt::format("at t={} s it wrote a line that is not a JSON object: {} ({})", seconds(now_), shown, e.what()));
  }
  if (!m.is_object())
    protocol_error(fmt::format("at t={} s it wrote a line that is not a JSON object: {}", seconds(now_), shown));
  if (!m.contains("type") || !m["type"].is_string())
    protocol_error(fmt::format("at t={} s its message has no \"type\": {}", seconds(now_), excerpt(m)));
  const std::string type = m["type"];
  if (type != expected && !(std::string(expected) == "decisions" && type == "state"))
    protocol_error(fmt::format("at t={} s it sent a \"{}\" message where \"{}\" was expected", seconds(now_), type,
                               expected));
  return m;
}

void ExternalPolicy::submitted(const PendingJob& job, const std::string& trace_id, const std::string& user,
                               const std::string& model) {
  const auto& s = *job.spec;
  json allowed = json::array();
  for (cluster::ModelId m = 0; m < topo_->catalog().size(); ++m)
    if (job.allowed >> m & 1) allowed.push_back(topo_->catalog().model(m).name);
  events_.push_back({{"event", "submit"},
                     {"job",
                      {{"id", s.id},
                       {"trace_id", trace_id},
                       {"submit", seconds(s.submit)},
                       {"tasks", s.tasks},
                       {"gpus_per_task", s.gpus_per_task},
                       {"gpu_milli", s.fractional() ? s.gpu_milli : 0},
                       {"cpus_per_task", s.cpu_milli / 1000.0},
                       {"mem_gb_per_task", s.mem_mib / 1024.0},
                       {"duration", seconds(s.duration)},
                       {"estimate", seconds(s.estimate)},
                       {"user", user},
                       {"model", model.empty() ? json(nullptr) : json(model)},
                       {"allowed_models", std::move(allowed)},
                       {"gang", s.gang},
                       {"preemptible", s.preemptible}}}});
}

void ExternalPolicy::event(const char* kind, workload::JobId id) { events_.push_back({{"event", kind}, {"job", id}}); }

void ExternalPolicy::stopped(workload::JobId id, const char* cause) {
  events_.push_back({{"event", "stopped"}, {"job", id}, {"cause", cause}});
}

void ExternalPolicy::host_changed(cluster::HostId h, std::uint16_t gpus_down) {
  if (gpus_down == 0)
    events_.push_back({{"event", "host_up"}, {"host", host_names_[h]}});
  else
    events_.push_back({{"event", "host_down"}, {"host", host_names_[h]}, {"gpus_down", gpus_down}});
}

void ExternalPolicy::timer_due(engine::Time at) { events_.push_back({{"event", "timer"}, {"at", seconds(at)}}); }

std::vector<ExternalDecision> ExternalPolicy::tick(engine::Time now, const std::function<json()>& state) {
  now_ = now;
  json tick = {{"type", "tick"}, {"now", seconds(now)}, {"events", std::move(events_)}};
  events_ = json::array();
  if (full_state_) tick["state"] = state();
  process_->send(tick.dump());
  json reply = read_message("decisions");
  if (reply["type"] == "state") {
    json answer = state();
    answer["type"] = "state";
    process_->send(answer.dump());
    reply = read_message("decisions");
    if (reply["type"] != "decisions")
      protocol_error(fmt::format("at t={} s it asked for the state twice in one tick", seconds(now)));
  }
  std::vector<ExternalDecision> out;
  const auto it = reply.find("decisions");
  if (it == reply.end()) return out;  // "nothing" may be said by leaving the list out
  if (!it->is_array())
    protocol_error(fmt::format("at t={} s \"decisions\" is not a list: {}", seconds(now), excerpt(*it)));
  std::size_t index = 0;
  for (const auto& d : *it)
    if (auto parsed = parse_decision(d, ++index)) out.push_back(std::move(*parsed));
  return out;
}

std::optional<ExternalDecision> ExternalPolicy::parse_decision(const json& d, std::size_t index) {
  ExternalDecision out;
  out.index = index;
  out.text = excerpt(d);
  auto job_id = [&](const json& v) -> bool {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 ||
        v.get<std::uint64_t>() > std::numeric_limits<workload::JobId>::max())
      return false;
    out.job = v.get<workload::JobId>();
    return true;
  };
  if (!d.is_object()) {
    invalid(out, "a decision is an object: {\"start\":...}, {\"preempt\":...} or {\"timer\":...}");
    return std::nullopt;
  }
  if (d.contains("start")) {
    out.kind = ExternalDecision::Kind::start;
    if (!job_id(d["start"])) {
      invalid(out, "\"start\" is not a job id");
      return std::nullopt;
    }
    const auto hosts = d.find("hosts");
    if (hosts == d.end() || !hosts->is_array() || hosts->empty()) {
      invalid(out, "a start names its hosts: \"hosts\": [\"h0\", ...], one per task");
      return std::nullopt;
    }
    for (const auto& h : *hosts) {
      const auto found = h.is_string() ? host_ids_.find(h.get<std::string>()) : host_ids_.end();
      if (found == host_ids_.end()) {
        invalid(out, fmt::format("no host {} in this cluster", h.dump()));
        return std::nullopt;
      }
      out.hosts.push_back(found->second);
    }
    return out;
  }
  if (d.contains("preempt")) {
    out.kind = ExternalDecision::Kind::preempt;
    if (!job_id(d["preempt"])) {
      invalid(out, "\"preempt\" is not a job id");
      return std::nullopt;
    }
    return out;
  }
  if (d.contains("timer")) {
    out.kind = ExternalDecision::Kind::timer;
    const auto& t = d["timer"];
    const double at = t.is_number() ? t.get<double>() : std::nan("");
    // Later than now, and within the clock's range (100 years, as trace times are).
    if (!(at * 1e6 > static_cast<double>(now_)) || !(at <= 100.0 * 365 * 86400)) {
      invalid(out, fmt::format("a timer must be a time after now ({} s) and within 100 years", seconds(now_)));
      return std::nullopt;
    }
    out.at = std::max(now_ + 1, engine::from_micros(std::round(at * 1e6)));
    return out;
  }
  invalid(out, "a decision is {\"start\":...}, {\"preempt\":...} or {\"timer\":...}");
  return std::nullopt;
}

void ExternalPolicy::invalid(const ExternalDecision& d, const std::string& what) const {
  const std::string text =
      fmt::format("'{}': tick at {} s, decision {} {}: {}", config_.command, seconds(now_), d.index, d.text, what);
  if (!config_.skip_invalid) throw util::InputError(config_.file, config_.line, config_.field, text);
  // The decision's text is the policy's own output: printable, as every message quoting input.
  std::fprintf(stderr, "schedlab: warning: %s: %s (skipped)\n", config_.field.c_str(), util::printable(text).c_str());
}

}  // namespace schedlab::sched
