// Protocol v1: every message survives encode -> parse unchanged, and every malformed body is
// refused with the right HTTP status and a message naming the field.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "emu/protocol.h"

namespace schedlab::emu::protocol_test {

namespace {

struct Refusal {
  const char* name;
  std::string body;
  int status;
  const char* message;  // a substring of the error message
};

template <class Parse>
void check_refusals(Parse parse, const std::vector<Refusal>& table) {
  for (const auto& row : table) {
    CAPTURE(row.name);
    CAPTURE(row.body);
    auto parsed = parse(row.body);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.error().http_status == row.status);
    CHECK_MESSAGE(parsed.error().message.find(row.message) != std::string::npos, parsed.error().message);
  }
}

TaskReport sample_report() {
  TaskReport r;
  r.task = "j7-r1-t0";
  r.job = 7;
  r.run = 1;
  r.rank = 0;
  r.state = TaskState::running;
  r.progress = 12.5;
  return r;
}

}  // namespace

TEST_CASE("Emu.Protocol.every_message_round_trips") {
  TaskReport exited = sample_report();
  exited.state = TaskState::exited;
  exited.exit_code = -3;
  exited.progress.reset();
  TaskReport signaled = sample_report();
  signaled.state = TaskState::signaled;
  signaled.signal = 9;
  signaled.job = 18446744073709551615ull;  // the whole unsigned 64-bit range
  signaled.rank = 4294967295u;

  RegisterRequest reg{"host-3", {0, 1, 2, 3}, false, {sample_report(), exited}};
  auto reg2 = parse_register_request(dump_json(to_json(reg)));
  REQUIRE_MESSAGE(reg2.ok(), reg2.error().message);
  CHECK(reg2.value() == reg);

  RegisterResponse rr{"agent-1-host-3", 1000, 10000};
  auto rr2 = parse_register_response(dump_json(to_json(rr)));
  REQUIRE(rr2.ok());
  CHECK(rr2.value() == rr);

  PollRequest poll{"agent-1", "host-3", {sample_report(), exited, signaled}, 5000};
  auto poll2 = parse_poll_request(dump_json(to_json(poll)));
  REQUIRE_MESSAGE(poll2.ok(), poll2.error().message);
  CHECK(poll2.value() == poll);

  LaunchCommand launch{"j7-r1-t0", 7, 1, 0, {"sh", "-c", "echo hi"}, {{"RANK", "0"}, {"WORLD_SIZE", "2"}}, "/tmp/ck"};
  PollResponse commands{{launch, KillCommand{"j6-r0-t1", 5000}, ShutdownCommand{}}};
  auto commands2 = parse_poll_response(dump_json(to_json(commands)));
  REQUIRE_MESSAGE(commands2.ok(), commands2.error().message);
  CHECK(commands2.value() == commands);

  ReportRequest report{"agent-1", "host-3", {exited, signaled}};
  auto report2 = parse_report_request(dump_json(to_json(report)));
  REQUIRE(report2.ok());
  CHECK(report2.value() == report);

  CHECK(parse_ok_response(dump_json(ok_json())).ok());
  CHECK(error_message_of(dump_json(error_json("no such job"))) == "no such job");
  CHECK(error_message_of("not json") == "");
}

TEST_CASE("Emu.Protocol.the_wire_form_is_the_documented_one") {
  // docs/emulation.md shows these bodies; a change here is a protocol change.
  TaskReport r = sample_report();
  CHECK(dump_json(to_json(r)) == R"({"job":7,"progress":12.5,"rank":0,"run":1,"state":"running","task":"j7-r1-t0"})");
  CHECK(dump_json(to_json(Command{KillCommand{"t", 250}})) == R"({"grace_ms":250,"op":"kill","task":"t"})");
  CHECK(dump_json(to_json(RegisterResponse{"a1", 1000, 10000})) ==
        R"({"agent_id":"a1","heartbeat_interval_ms":1000,"heartbeat_timeout_ms":10000,"version":1})");
  CHECK(dump_json(error_json("x")) == R"({"error":"x","version":1})");
}

TEST_CASE("Emu.Protocol.unknown_fields_are_ignored_and_optional_ones_may_be_absent") {
  auto p = parse_poll_request(
      R"({"version":1,"agent_id":"a","host":"h","wait_ms":0,"future":{"x":[1,2]},
          "reports":[{"task":"t","job":1,"run":0,"rank":2,"state":"exited","exit_code":0,"extra":null}]})");
  REQUIRE_MESSAGE(p.ok(), p.error().message);
  CHECK(p.value().reports.size() == 1);
  CHECK_FALSE(p.value().reports[0].progress.has_value());
  CHECK(p.value().wait_ms == 0);
}

TEST_CASE("Emu.Protocol.bodies_that_are_not_version_1_objects_are_refused") {
  check_refusals(parse_register_request,
                 {
                     {"empty", "", 400, "malformed JSON"},
                     {"truncated", R"({"version":1,"host":"h","gpus":[0,)", 400, "malformed JSON"},
                     {"garbage", "\x01\x02\xff", 400, "malformed JSON"},
                     {"invalid UTF-8 string", "{\"version\":1,\"host\":\"\xff\xfe\"}", 400, "malformed JSON"},
                     {"array", "[1,2]", 400, "expected a JSON object, got an array"},
                     {"string", R"("hello")", 400, "expected a JSON object"},
                     {"no version", R"({"host":"h"})", 400, "version: missing"},
                     {"version 2", R"({"version":2,"host":"h"})", 426, "version: 2 is not supported"},
                     {"version 0", R"({"version":0})", 426, "not supported"},
                     {"version -1", R"({"version":-1})", 426, "not supported"},
                     {"version as string", R"({"version":"1"})", 400, "version: expected an integer"},
                     {"version as float", R"({"version":1.0})", 400, "version: expected an integer"},
                     {"deep nesting", std::string(100000, '['), 400, "nested deeper than"},
                     {"trailing garbage", R"({"version":1} x)", 400, "malformed JSON"},
                 });
}

TEST_CASE("Emu.Protocol.register_refusals_name_the_field") {
  const std::string tasks = R"("tasks":[])";
  check_refusals(
      parse_register_request,
      {
          {"missing host", R"({"version":1,"gpus":[],"virtual":true,)" + tasks + "}", 400, "host: missing"},
          {"empty host", R"({"version":1,"host":"","gpus":[],"virtual":true,)" + tasks + "}", 400,
           "host: expected a non-empty string"},
          {"host as number", R"({"version":1,"host":5,"gpus":[],"virtual":true,)" + tasks + "}", 400,
           "host: expected a string, got 5"},
          {"null host", R"({"version":1,"host":null,"gpus":[],"virtual":true,)" + tasks + "}", 400, "host: missing"},
          {"gpus not array", R"({"version":1,"host":"h","gpus":"0,1","virtual":true,)" + tasks + "}", 400,
           "gpus: expected an array"},
          {"negative gpu", R"({"version":1,"host":"h","gpus":[0,-1],"virtual":true,)" + tasks + "}", 400,
           "gpus[1]: expected a GPU index"},
          {"huge gpu", R"({"version":1,"host":"h","gpus":[4294967296],"virtual":true,)" + tasks + "}", 400,
           "gpus[0]: expected a GPU index"},
          {"virtual as string", R"({"version":1,"host":"h","gpus":[],"virtual":"yes",)" + tasks + "}", 400,
           "virtual: expected true or false"},
          {"missing tasks", R"({"version":1,"host":"h","gpus":[],"virtual":true})", 400, "tasks: missing"},
          {"task not object", R"({"version":1,"host":"h","gpus":[],"virtual":true,"tasks":[7]})", 400,
           "tasks[0]: expected an object, got 7"},
      });
}

TEST_CASE("Emu.Protocol.task_report_refusals_name_the_element_and_field") {
  auto poll_with = [](const std::string& report) {
    return R"({"version":1,"agent_id":"a","host":"h","wait_ms":100,"reports":[)"
           R"({"task":"ok","job":1,"run":0,"rank":0,"state":"running"},{"task":"ok2","job":1,"run":0,"rank":0,"state":"running"},)" +
           report + "]}";
  };
  check_refusals(
      parse_poll_request,
      {
          {"negative rank", poll_with(R"({"task":"t","job":1,"run":0,"rank":-1,"state":"running"})"), 400,
           "reports[2].rank: expected an unsigned integer, got -1"},
          {"fractional rank", poll_with(R"({"task":"t","job":1,"run":0,"rank":1.5,"state":"running"})"), 400,
           "reports[2].rank: expected an unsigned integer, got 1.5"},
          {"rank beyond 32 bits", poll_with(R"({"task":"t","job":1,"run":0,"rank":4294967296,"state":"running"})"), 400,
           "reports[2].rank: 4294967296 is out of range [0, 4294967295]"},
          {"job beyond 64 bits",
           poll_with(R"({"task":"t","job":18446744073709551616,"run":0,"rank":0,"state":"running"})"), 400,
           "reports[2].job: expected an unsigned integer"},
          {"job as exponent", poll_with(R"({"task":"t","job":1e3,"run":0,"rank":0,"state":"running"})"), 400,
           "reports[2].job: expected an unsigned integer"},
          {"job as string", poll_with(R"({"task":"t","job":"7","run":0,"rank":0,"state":"running"})"), 400,
           "reports[2].job: expected an unsigned integer, got \"7\""},
          {"missing run", poll_with(R"({"task":"t","job":1,"rank":0,"state":"running"})"), 400, "reports[2].run: missing"},
          {"unknown state", poll_with(R"({"task":"t","job":1,"run":0,"rank":0,"state":"zombie"})"), 400,
           "reports[2].state: unknown state \"zombie\"; valid: running, exited, signaled"},
          {"exited without code", poll_with(R"({"task":"t","job":1,"run":0,"rank":0,"state":"exited"})"), 400,
           "reports[2].exit_code: missing"},
          {"huge exit code",
           poll_with(R"({"task":"t","job":1,"run":0,"rank":0,"state":"exited","exit_code":99999999999})"), 400,
           "reports[2].exit_code: 99999999999 is out of range"},
          {"signal 0", poll_with(R"({"task":"t","job":1,"run":0,"rank":0,"state":"signaled","signal":0})"), 400,
           "reports[2].signal: 0 is out of range [1, 1024]"},
          {"negative progress",
           poll_with(R"({"task":"t","job":1,"run":0,"rank":0,"state":"running","progress":-0.5})"), 400,
           "reports[2].progress: -0.5 is out of range"},
          {"progress as string",
           poll_with(R"({"task":"t","job":1,"run":0,"rank":0,"state":"running","progress":"5"})"), 400,
           "reports[2].progress: expected a number"},
          {"huge progress",
           poll_with(R"({"task":"t","job":1,"run":0,"rank":0,"state":"running","progress":1e999})"), 400,
           "malformed JSON"},
          {"reports not array", R"({"version":1,"agent_id":"a","host":"h","wait_ms":1,"reports":{}})", 400,
           "reports: expected an array, got an object"},
          {"wait too long", R"({"version":1,"agent_id":"a","host":"h","wait_ms":5001,"reports":[]})", 400,
           "wait_ms: 5001 is out of range [0, 5000]"},
          {"negative wait", R"({"version":1,"agent_id":"a","host":"h","wait_ms":-1,"reports":[]})", 400,
           "wait_ms: expected an unsigned integer"},
          {"empty agent_id", R"({"version":1,"agent_id":"","host":"h","wait_ms":1,"reports":[]})", 400,
           "agent_id: expected a non-empty string"},
      });
}

TEST_CASE("Emu.Protocol.command_refusals_name_the_command") {
  auto with = [](const std::string& command) {
    return R"({"version":1,"commands":[{"op":"shutdown"},)" + command + "]}";
  };
  check_refusals(parse_poll_response,
                 {
                     {"unknown op", with(R"({"op":"reboot"})"), 400,
                      "commands[1].op: unknown operation \"reboot\"; valid: launch, kill, shutdown"},
                     {"missing op", with(R"({"task":"t"})"), 400, "commands[1].op: missing"},
                     {"kill without grace", with(R"({"op":"kill","task":"t"})"), 400, "commands[1].grace_ms: missing"},
                     {"kill negative grace", with(R"({"op":"kill","task":"t","grace_ms":-5})"), 400,
                      "commands[1].grace_ms: expected an unsigned integer, got -5"},
                     {"launch empty argv",
                      with(R"({"op":"launch","task":"t","job":1,"run":0,"rank":0,"argv":[],"env":{},"checkpoint_dir":""})"),
                      400, "commands[1].argv: expected at least one element"},
                     {"launch argv of numbers",
                      with(R"({"op":"launch","task":"t","job":1,"run":0,"rank":0,"argv":["sh",3],"env":{},"checkpoint_dir":""})"),
                      400, "commands[1].argv[1]: expected a string, got 3"},
                     {"launch env of numbers",
                      with(R"({"op":"launch","task":"t","job":1,"run":0,"rank":0,"argv":["sh"],"env":{"RANK":0},"checkpoint_dir":""})"),
                      400, "commands[1].env.RANK: expected a string, got 0"},
                     {"launch env name with =",
                      with(R"({"op":"launch","task":"t","job":1,"run":0,"rank":0,"argv":["sh"],"env":{"A=B":"1"},"checkpoint_dir":""})"),
                      400, "commands[1].env: \"A=B\" is not a variable name"},
                     {"launch without checkpoint_dir",
                      with(R"({"op":"launch","task":"t","job":1,"run":0,"rank":0,"argv":["sh"],"env":{}})"), 400,
                      "commands[1].checkpoint_dir: missing"},
                     {"commands not array", R"({"version":1,"commands":null})", 400, "commands: missing"},
                 });
}

TEST_CASE("Emu.Protocol.register_and_report_responses_are_checked_too") {
  check_refusals(parse_register_response,
                 {
                     {"no id", R"({"version":1,"heartbeat_interval_ms":1,"heartbeat_timeout_ms":2})", 400,
                      "agent_id: missing"},
                     {"negative interval",
                      R"({"version":1,"agent_id":"a","heartbeat_interval_ms":-1,"heartbeat_timeout_ms":2})", 400,
                      "heartbeat_interval_ms: expected an unsigned integer"},
                 });
  check_refusals(parse_report_request, {
                                           {"no reports", R"({"version":1,"agent_id":"a","host":"h"})", 400,
                                            "reports: missing"},
                                       });
  check_refusals(parse_ok_response, {{"version 3", R"({"version":3})", 426, "not supported"}});
}

TEST_CASE("Emu.Protocol.field_reader_serves_other_messages") {
  // The controller's API parses its own bodies with the same reader.
  struct Submit {
    std::uint32_t tasks;
    double work_s;
  };
  auto parse = [](std::string_view body) {
    return parse_message<Submit>(body, [](const FieldReader& r) {
      FieldReader job = r.object("job");
      return Submit{job.uint32("tasks"), job.number("work_s", 0, 1e9)};
    });
  };
  auto ok = parse(R"({"version":1,"job":{"tasks":4,"work_s":3600}})");
  REQUIRE(ok.ok());
  CHECK(ok.value().tasks == 4);
  CHECK(ok.value().work_s == 3600);
  check_refusals(parse, {
                            {"nested type", R"({"version":1,"job":{"tasks":"4","work_s":1}})", 400,
                             "job.tasks: expected an unsigned integer, got \"4\""},
                            {"nested range", R"({"version":1,"job":{"tasks":4,"work_s":-1}})", 400,
                             "job.work_s: -1 is out of range [0, 1000000000]"},
                            {"not an object", R"({"version":1,"job":[1]})", 400, "job: expected an object, got an array"},
                        });
}

}  // namespace schedlab::emu::protocol_test
