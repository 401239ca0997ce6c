// Protocol v1 messages: encoders and strict, non-throwing parsers.
#include "emu/protocol.h"

#include <fmt/format.h>

#include <cmath>

#include "util/json_read.h"

namespace schedlab::emu {

using nlohmann::json;

namespace {

const char* json_type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "an integer";
    case json::value_t::number_float:
      return "a number";
    case json::value_t::binary:
      return "binary";
    case json::value_t::discarded:
      break;
  }
  return "nothing";
}

// What a value is, for "expected X, got Y": short values are quoted, others named by type.
std::string describe_value(const json& v) {
  if (v.is_number() || v.is_boolean() || v.is_null()) return dump_json(v);
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s.size() <= 32) return dump_json(v);
  }
  return json_type_name(v);
}

std::optional<TaskState> task_state_from(std::string_view s) {
  if (s == "running") return TaskState::running;
  if (s == "exited") return TaskState::exited;
  if (s == "signaled") return TaskState::signaled;
  return std::nullopt;
}

json reports_json(const std::vector<TaskReport>& reports) {
  json a = json::array();
  for (const auto& r : reports) a.push_back(to_json(r));
  return a;
}

std::vector<TaskReport> read_reports(const FieldReader& r, std::string_view key) {
  const json& a = r.array(key);
  std::vector<TaskReport> out;
  out.reserve(a.size());
  const std::string path = r.field_path(key);
  for (std::size_t i = 0; i < a.size(); ++i) out.push_back(read_task_report(element_reader(a, i, path)));
  return out;
}

Command read_command(const FieldReader& r) {
  const std::string op = r.string("op");
  if (op == "launch") {
    LaunchCommand c;
    c.task = r.name("task");
    c.job = r.uint("job");
    c.run = r.uint("run");
    c.rank = r.uint32("rank");
    c.argv = r.strings("argv");
    if (c.argv.empty()) FieldReader::fail(r.field_path("argv"), "expected at least one element (the program)");
    if (c.argv[0].empty()) FieldReader::fail(r.field_path("argv") + "[0]", "the program is an empty string");
    c.env = r.string_map("env");
    for (const auto& [k, v] : c.env)
      if (k.empty() || k.find('=') != std::string::npos || k.find('\0') != std::string::npos)
        FieldReader::fail(r.field_path("env"), fmt::format("{} is not a variable name", dump_json(k)));
    c.checkpoint_dir = r.string("checkpoint_dir");
    return c;
  }
  if (op == "kill") {
    KillCommand c;
    c.task = r.name("task");
    c.grace_ms = r.uint32("grace_ms");
    return c;
  }
  if (op == "shutdown") return ShutdownCommand{};
  FieldReader::fail(r.field_path("op"), fmt::format("unknown operation {}; valid: launch, kill, shutdown",
                                                   describe_value(r.raw().at("op"))));
}

}  // namespace

const char* task_state_name(TaskState s) {
  switch (s) {
    case TaskState::running:
      return "running";
    case TaskState::exited:
      return "exited";
    case TaskState::signaled:
      return "signaled";
  }
  return "?";
}

// --- Encoding -------------------------------------------------------------------------------

json to_json(const TaskReport& r) {
  json j{{"task", r.task}, {"job", r.job}, {"run", r.run}, {"rank", r.rank}, {"state", task_state_name(r.state)}};
  if (r.state == TaskState::exited) j["exit_code"] = r.exit_code;
  if (r.state == TaskState::signaled) j["signal"] = r.signal;
  if (r.progress) j["progress"] = *r.progress;
  return j;
}

json to_json(const Command& c) {
  struct Visitor {
    json operator()(const LaunchCommand& l) const {
      return json{{"op", "launch"}, {"task", l.task}, {"job", l.job},   {"run", l.run},
                  {"rank", l.rank}, {"argv", l.argv}, {"env", l.env}, {"checkpoint_dir", l.checkpoint_dir}};
    }
    json operator()(const KillCommand& k) const { return json{{"op", "kill"}, {"task", k.task}, {"grace_ms", k.grace_ms}}; }
    json operator()(const ShutdownCommand&) const { return json{{"op", "shutdown"}}; }
  };
  return std::visit(Visitor{}, c);
}

json to_json(const RegisterRequest& m) {
  return json{{"version", kProtocolVersion},
              {"host", m.host},
              {"gpus", m.gpus},
              {"virtual", m.virtual_gpus},
              {"tasks", reports_json(m.tasks)}};
}

json to_json(const RegisterResponse& m) {
  return json{{"version", kProtocolVersion},
              {"agent_id", m.agent_id},
              {"heartbeat_interval_ms", m.heartbeat_interval_ms},
              {"heartbeat_timeout_ms", m.heartbeat_timeout_ms}};
}

json to_json(const PollRequest& m) {
  return json{{"version", kProtocolVersion},
              {"agent_id", m.agent_id},
              {"host", m.host},
              {"reports", reports_json(m.reports)},
              {"wait_ms", m.wait_ms}};
}

json to_json(const PollResponse& m) {
  json cmds = json::array();
  for (const auto& c : m.commands) cmds.push_back(to_json(c));
  return json{{"version", kProtocolVersion}, {"commands", std::move(cmds)}};
}

json to_json(const ReportRequest& m) {
  return json{{"version", kProtocolVersion},
              {"agent_id", m.agent_id},
              {"host", m.host},
              {"reports", reports_json(m.reports)}};
}

json ok_json() { return json{{"version", kProtocolVersion}}; }

json error_json(std::string_view message) {
  return json{{"version", kProtocolVersion}, {"error", std::string(message)}};
}

std::string dump_json(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// --- FieldReader ----------------------------------------------------------------------------

FieldReader::FieldReader(const json& object, std::string path) : obj_(object), path_(std::move(path)) {
  if (!obj_.is_object())
    fail(path_.empty() ? std::string("body") : path_, fmt::format("expected an object, got {}", describe_value(obj_)));
}

std::string FieldReader::field_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

std::string FieldReader::element_path(const std::string& array_path, std::size_t index) {
  return fmt::format("{}[{}]", array_path, index);
}

void FieldReader::fail(const std::string& field, const std::string& what, int status) {
  throw ProtocolException(ProtocolError{status, field.empty() ? what : field + ": " + what});
}

bool FieldReader::has(std::string_view key) const {
  auto it = obj_.find(key);
  return it != obj_.end() && !it->is_null();
}

const json& FieldReader::at(std::string_view key) const {
  auto it = obj_.find(key);
  if (it == obj_.end() || it->is_null()) fail(field_path(key), "missing");
  return *it;
}

std::string FieldReader::string(std::string_view key) const {
  const json& v = at(key);
  if (!v.is_string()) fail(field_path(key), fmt::format("expected a string, got {}", describe_value(v)));
  return v.get<std::string>();
}

std::string FieldReader::name(std::string_view key) const {
  std::string s = string(key);
  if (s.empty()) fail(field_path(key), "expected a non-empty string");
  return s;
}

bool FieldReader::boolean(std::string_view key) const {
  const json& v = at(key);
  if (!v.is_boolean()) fail(field_path(key), fmt::format("expected true or false, got {}", describe_value(v)));
  return v.get<bool>();
}

std::uint64_t FieldReader::uint(std::string_view key, std::uint64_t max) const {
  const json& v = at(key);
  // Only integer tokens: 2.0 and 1e3 are numbers of another kind, and a value beyond 64 bits
  // arrives here as a floating-point number, so it is refused rather than rounded.
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > max) fail(field_path(key), fmt::format("{} is out of range [0, {}]", u, max));
    return u;
  }
  if (v.is_number_integer()) fail(field_path(key), fmt::format("expected an unsigned integer, got {}", describe_value(v)));
  fail(field_path(key), fmt::format("expected an unsigned integer, got {}", describe_value(v)));
}

std::uint32_t FieldReader::uint32(std::string_view key) const {
  return static_cast<std::uint32_t>(uint(key, std::numeric_limits<std::uint32_t>::max()));
}

std::int64_t FieldReader::integer(std::string_view key, std::int64_t min, std::int64_t max) const {
  const json& v = at(key);
  std::int64_t i = 0;
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      fail(field_path(key), fmt::format("{} is out of range [{}, {}]", u, min, max));
    i = static_cast<std::int64_t>(u);
  } else if (v.is_number_integer()) {
    i = v.get<std::int64_t>();
  } else {
    fail(field_path(key), fmt::format("expected an integer, got {}", describe_value(v)));
  }
  if (i < min || i > max) fail(field_path(key), fmt::format("{} is out of range [{}, {}]", i, min, max));
  return i;
}

double FieldReader::number(std::string_view key, double min, double max) const {
  const json& v = at(key);
  if (!v.is_number()) fail(field_path(key), fmt::format("expected a number, got {}", describe_value(v)));
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < min || d > max)
    fail(field_path(key), fmt::format("{} is out of range [{}, {}]", dump_json(v), min, max));
  return d;
}

const json& FieldReader::array(std::string_view key) const {
  const json& v = at(key);
  if (!v.is_array()) fail(field_path(key), fmt::format("expected an array, got {}", describe_value(v)));
  return v;
}

FieldReader FieldReader::object(std::string_view key) const { return FieldReader(at(key), field_path(key)); }

std::vector<std::string> FieldReader::strings(std::string_view key) const {
  const json& a = array(key);
  std::vector<std::string> out;
  out.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_string())
      fail(element_path(field_path(key), i), fmt::format("expected a string, got {}", describe_value(a[i])));
    out.push_back(a[i].get<std::string>());
  }
  return out;
}

std::map<std::string, std::string> FieldReader::string_map(std::string_view key) const {
  const json& o = at(key);
  if (!o.is_object()) fail(field_path(key), fmt::format("expected an object, got {}", describe_value(o)));
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : o.items()) {
    if (!v.is_string()) fail(field_path(key) + "." + k, fmt::format("expected a string, got {}", describe_value(v)));
    out.emplace(k, v.get<std::string>());
  }
  return out;
}

FieldReader element_reader(const json& array, std::size_t index, const std::string& array_path) {
  return FieldReader(array.at(index), FieldReader::element_path(array_path, index));
}

// --- Parsing --------------------------------------------------------------------------------

Parsed<json> parse_versioned_object(std::string_view body) {
  json doc;
  try {
    // Deeper nesting than kMaxJsonDepth is refused while parsing, so a body of a million '['
    // costs one pass and no deep structure.
    doc = parse_json(body);
  } catch (const JsonReadError& e) {
    return ProtocolError{400, std::string("malformed JSON: ") + e.what()};
  }
  if (!doc.is_object()) return ProtocolError{400, fmt::format("body: expected a JSON object, got {}", describe_value(doc))};
  auto v = doc.find("version");
  if (v == doc.end() || v->is_null()) return ProtocolError{400, "version: missing (this server speaks version 1)"};
  if (!v->is_number_unsigned() && !v->is_number_integer())
    return ProtocolError{400, fmt::format("version: expected an integer, got {}", describe_value(*v))};
  if (!v->is_number_unsigned() || v->get<std::uint64_t>() != static_cast<std::uint64_t>(kProtocolVersion))
    return ProtocolError{426, fmt::format("version: {} is not supported; this server speaks version {}",
                                          dump_json(*v), kProtocolVersion)};
  return doc;
}

TaskReport read_task_report(const FieldReader& r) {
  TaskReport t;
  t.task = r.name("task");
  t.job = r.uint("job");
  t.run = r.uint("run");
  t.rank = r.uint32("rank");
  const std::string state = r.string("state");
  auto s = task_state_from(state);
  if (!s)
    FieldReader::fail(r.field_path("state"),
                      fmt::format("unknown state {}; valid: running, exited, signaled", dump_json(state)));
  t.state = *s;
  if (t.state == TaskState::exited)
    t.exit_code = static_cast<int>(r.integer("exit_code", std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
  if (t.state == TaskState::signaled) t.signal = static_cast<int>(r.integer("signal", 1, 1024));
  if (r.has("progress")) t.progress = r.number("progress", 0.0, std::numeric_limits<double>::max());
  return t;
}

Parsed<RegisterRequest> parse_register_request(std::string_view body) {
  return parse_message<RegisterRequest>(body, [](const FieldReader& r) {
    RegisterRequest m;
    m.host = r.name("host");
    const json& gpus = r.array("gpus");
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      const json& g = gpus[i];
      if (!g.is_number_unsigned() || g.get<std::uint64_t>() > std::numeric_limits<std::uint32_t>::max())
        FieldReader::fail(FieldReader::element_path("gpus", i),
                          fmt::format("expected a GPU index (an unsigned 32-bit integer), got {}", describe_value(g)));
      m.gpus.push_back(g.get<std::uint32_t>());
    }
    m.virtual_gpus = r.boolean("virtual");
    m.tasks = read_reports(r, "tasks");
    return m;
  });
}

Parsed<RegisterResponse> parse_register_response(std::string_view body) {
  return parse_message<RegisterResponse>(body, [](const FieldReader& r) {
    RegisterResponse m;
    m.agent_id = r.name("agent_id");
    m.heartbeat_interval_ms = r.uint32("heartbeat_interval_ms");
    m.heartbeat_timeout_ms = r.uint32("heartbeat_timeout_ms");
    return m;
  });
}

Parsed<PollRequest> parse_poll_request(std::string_view body) {
  return parse_message<PollRequest>(body, [](const FieldReader& r) {
    PollRequest m;
    m.agent_id = r.name("agent_id");
    m.host = r.name("host");
    m.reports = read_reports(r, "reports");
    m.wait_ms = static_cast<std::uint32_t>(r.uint("wait_ms", kMaxPollWaitMs));
    return m;
  });
}

Parsed<PollResponse> parse_poll_response(std::string_view body) {
  return parse_message<PollResponse>(body, [](const FieldReader& r) {
    PollResponse m;
    const json& cmds = r.array("commands");
    for (std::size_t i = 0; i < cmds.size(); ++i) m.commands.push_back(read_command(element_reader(cmds, i, "commands")));
    return m;
  });
}

Parsed<ReportRequest> parse_report_request(std::string_view body) {
  return parse_message<ReportRequest>(body, [](const FieldReader& r) {
    ReportRequest m;
    m.agent_id = r.name("agent_id");
    m.host = r.name("host");
    m.reports = read_reports(r, "reports");
    return m;
  });
}

Parsed<std::monostate> parse_ok_response(std::string_view body) {
  return parse_message<std::monostate>(body, [](const FieldReader&) { return std::monostate{}; });
}

std::string error_message_of(std::string_view body) {
  json doc;
  try {
    doc = parse_json(body);
  } catch (const JsonReadError&) {
    return "";
  }
  if (!doc.is_object()) return "";
  auto e = doc.find("error");
  if (e == doc.end() || !e->is_string()) return "";
  return e->get<std::string>();
}

}  // namespace schedlab::emu
