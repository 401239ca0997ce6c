// The emulator's wire protocol, version 1 (docs/emulation.md): the messages that node agents
// and the controller exchange as JSON over HTTP, as C++ values, with their encoders and their
// parsers. Parsing never throws: a body from the network becomes either a message or a
// ProtocolError carrying the HTTP status to answer with and a message that names the field
// ("reports[2].rank: expected an unsigned integer, got -1"). Unknown fields are ignored, so a
// newer peer may add fields; a different "version" is refused (426), which is how a peer
// learns that it must be upgraded.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace schedlab::emu {

inline constexpr int kProtocolVersion = 1;
// The longest a controller may hold a poll open (PollRequest::wait_ms).
inline constexpr std::uint32_t kMaxPollWaitMs = 5000;

// Why a message was refused, and the HTTP status that says so (400 malformed or wrong type,
// 426 another protocol version; routes add 401, 404, 405, 409 and 413).
struct ProtocolError {
  int http_status = 400;
  std::string message;
};

// A message or the reason it was refused. A tiny std::expected (C++23) for C++20.
template <class T>
class Parsed {
 public:
  Parsed(T value) : v_(std::move(value)) {}                // NOLINT: implicit on purpose
  Parsed(ProtocolError error) : v_(std::move(error)) {}    // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  // Only when ok().
  const T& value() const& { return std::get<0>(v_); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  // Only when !ok().
  const ProtocolError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, ProtocolError> v_;
};

// --- Messages -------------------------------------------------------------------------------

enum class TaskState { running, exited, signaled };
const char* task_state_name(TaskState s);

// What an agent knows about one task it launched.
struct TaskReport {
  std::string task;  // the controller's name for the task, unique while it runs
  std::uint64_t job = 0;
  std::uint64_t run = 0;  // the job's run (incremented at each restart), so stale reports are told apart
  std::uint32_t rank = 0;
  TaskState state = TaskState::running;
  int exit_code = 0;  // when exited
  int signal = 0;     // when signaled
  std::optional<double> progress;  // work done, as last written by the task to its progress file
  bool operator==(const TaskReport&) const = default;
};

// POST /v1/agents/register
struct RegisterRequest {
  std::string host;
  std::vector<std::uint32_t> gpus;  // GPU indices (real ones, or 0..N-1 when virtual)
  bool virtual_gpus = true;         // "virtual" on the wire
  std::vector<TaskReport> tasks;    // what the agent still runs (after a reconnect)
  bool operator==(const RegisterRequest&) const = default;
};
struct RegisterResponse {
  std::string agent_id;  // new at every registration (an incarnation)
  std::uint32_t heartbeat_interval_ms = 1000;
  std::uint32_t heartbeat_timeout_ms = 10000;
  bool operator==(const RegisterResponse&) const = default;
};

// POST /v1/agents/poll: the heartbeat; the controller holds it up to wait_ms when it has no
// commands.
struct PollRequest {
  std::string agent_id;
  std::string host;
  std::vector<TaskReport> reports;
  std::uint32_t wait_ms = 1000;  // at most kMaxPollWaitMs
  bool operator==(const PollRequest&) const = default;
};

struct LaunchCommand {
  std::string task;
  std::uint64_t job = 0;
  std::uint64_t run = 0;
  std::uint32_t rank = 0;
  std::vector<std::string> argv;  // at least one element
  std::map<std::string, std::string> env;
  std::string checkpoint_dir;  // created 0700 by the agent; "" for none
  bool operator==(const LaunchCommand&) const = default;
};
// SIGTERM to the task's process group, SIGKILL after grace_ms.
struct KillCommand {
  std::string task;
  std::uint32_t grace_ms = 0;
  bool operator==(const KillCommand&) const = default;
};
// The agent kills its tasks and exits 0.
struct ShutdownCommand {
  bool operator==(const ShutdownCommand&) const = default;
};
using Command = std::variant<LaunchCommand, KillCommand, ShutdownCommand>;

struct PollResponse {
  std::vector<Command> commands;
  bool operator==(const PollResponse&) const = default;
};

// POST /v1/agents/report: sent at once when a task exits (the poll may be held open).
struct ReportRequest {
  std::string agent_id;
  std::string host;
  std::vector<TaskReport> reports;
  bool operator==(const ReportRequest&) const = default;
};

// --- Encoding (every object carries "version") ----------------------------------------------

nlohmann::json to_json(const TaskReport& r);  // no "version": an element of a message
nlohmann::json to_json(const Command& c);     // no "version": an element of a message
nlohmann::json to_json(const RegisterRequest& m);
nlohmann::json to_json(const RegisterResponse& m);
nlohmann::json to_json(const PollRequest& m);
nlohmann::json to_json(const PollResponse& m);
nlohmann::json to_json(const ReportRequest& m);
// {"version":1} (the reply to a report) and {"version":1,"error":"..."}.
nlohmann::json ok_json();
nlohmann::json error_json(std::string_view message);

// Serialises for the wire. Never throws: strings that are not valid UTF-8 (a path from a
// request line, say) are written with U+FFFD in place of the bad bytes.
std::string dump_json(const nlohmann::json& j);

// --- Parsing --------------------------------------------------------------------------------

Parsed<RegisterRequest> parse_register_request(std::string_view body);
Parsed<RegisterResponse> parse_register_response(std::string_view body);
Parsed<PollRequest> parse_poll_request(std::string_view body);
Parsed<PollResponse> parse_poll_response(std::string_view body);
Parsed<ReportRequest> parse_report_request(std::string_view body);
// A reply that carries nothing but the version ({"version":1}).
Parsed<std::monostate> parse_ok_response(std::string_view body);
// The "error" of an error reply, or "" when the body is not one (for log lines).
std::string error_message_of(std::string_view body);

// --- Helpers for parsing other messages (the controller's API) ------------------------------

// Thrown by FieldReader and caught by parse_message(); never escapes parse_message().
struct ProtocolException : std::runtime_error {
  explicit ProtocolException(ProtocolError e) : std::runtime_error(e.message), error(std::move(e)) {}
  ProtocolError error;
};

// Reads the fields of one JSON object and refuses, naming the field's path, anything that is
// missing, of the wrong type, negative or fractional where an integer is wanted, or out of
// range. Throws ProtocolException: use it inside parse_message(), which turns that into a
// ProtocolError.
class FieldReader {
 public:
  // `path` names the object in messages ("" for the body, "reports[2]" for an element).
  FieldReader(const nlohmann::json& object, std::string path);

  bool has(std::string_view key) const;  // present and not null
  const nlohmann::json& raw() const { return obj_; }
  const std::string& path() const { return path_; }

  std::string string(std::string_view key) const;
  // A string of at least one character.
  std::string name(std::string_view key) const;
  bool boolean(std::string_view key) const;
  std::uint64_t uint(std::string_view key,
                     std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) const;
  std::uint32_t uint32(std::string_view key) const;
  std::int64_t integer(std::string_view key, std::int64_t min, std::int64_t max) const;
  // A finite number within [min, max].
  double number(std::string_view key, double min, double max) const;
  // The array at `key` (an error when it is not one).
  const nlohmann::json& array(std::string_view key) const;
  // The object at `key`.
  FieldReader object(std::string_view key) const;
  std::vector<std::string> strings(std::string_view key) const;
  std::map<std::string, std::string> string_map(std::string_view key) const;

  // The path of a field or element, for messages: "reports[2].rank".
  std::string field_path(std::string_view key) const;
  static std::string element_path(const std::string& array_path, std::size_t index);
  [[noreturn]] static void fail(const std::string& field, const std::string& what, int status = 400);

 private:
  const nlohmann::json& at(std::string_view key) const;  // present, else fail("missing")
  const nlohmann::json& obj_;
  std::string path_;
};

// An element of an array as an object, for nested readers ("reports[2]").
FieldReader element_reader(const nlohmann::json& array, std::size_t index, const std::string& array_path);

// Parses `body` as a JSON object with "version": 1 (400 when it is not JSON or not an
// object, 426 for another version) and hands it to `read`, which returns the message;
// ProtocolExceptions thrown by `read` (FieldReader) become the returned ProtocolError.
template <class T, class Read>
Parsed<T> parse_message(std::string_view body, Read&& read);

// Implementation detail of parse_message: the JSON object with its version checked.
Parsed<nlohmann::json> parse_versioned_object(std::string_view body);

template <class T, class Read>
Parsed<T> parse_message(std::string_view body, Read&& read) {
  Parsed<nlohmann::json> doc = parse_versioned_object(body);
  if (!doc) return doc.error();
  try {
    return std::forward<Read>(read)(FieldReader(doc.value(), ""));
  } catch (const ProtocolException& e) {
    return e.error;
  } catch (const std::exception& e) {  // a nlohmann::json surprise: still the sender's fault
    return ProtocolError{400, e.what()};
  }
}

// Parses a TaskReport (an element of "reports" or "tasks").
TaskReport read_task_report(const FieldReader& r);

}  // namespace schedlab::emu
