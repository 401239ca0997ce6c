// Protocol v1 messages: encoders and strict, non-throwing parsers.
#include "emu/protocol.h"

#include <fmt/format.h>

#include <limits>

#include "util/json_read.h"

namespace schedlab::emu {

using nlohmann::json;

namespace {

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

// --- Parsing --------------------------------------------------------------------------------

Parsed<json> parse_versioned_object(std::string_view body) {
  json doc;
  try {
    // Deeper nesting than kMaxJsonDepth is refused while parsing, so a body of a million '['
    // costs one pass and no deep structure.
    doc = util::parse_json(body);
  } catch (const util::JsonReadError& e) {
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
    doc = util::parse_json(body);
  } catch (const util::JsonReadError&) {
    return "";
  }
  if (!doc.is_object()) return "";
  auto e = doc.find("error");
  if (e == doc.end() || !e->is_string()) return "";
  return e->get<std::string>();
}

}  // namespace schedlab::emu
