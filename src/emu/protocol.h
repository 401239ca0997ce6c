// The emulator's wire protocol, version 1 (docs/emulation.md): the messages that node agents
// and the controller exchange as JSON over HTTP, as C++ values, with their encoders and their
// parsers. Parsing never throws: a body from the network becomes either a message or a
// ProtocolError carrying the HTTP status to answer with and a message that names the field
// ("reports[2].rank: expected an unsigned integer, got -1"). Unknown fields are ignored, so a
// newer peer may add fields; a different "version" is refused (426), which is how a peer
// learns that it must be upgraded. The field reading itself (FieldReader, ProtocolError) is
// emu/json_fields.h, shared with the API and the journal.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "emu/json_fields.h"

namespace schedlab::emu {

inline constexpr int kProtocolVersion = 1;
// The longest a controller may hold a poll open (PollRequest::wait_ms).
inline constexpr std::uint32_t kMaxPollWaitMs = 5000;

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

// --- Parsing other messages by the same rules (the controller's API) -------------------------

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
