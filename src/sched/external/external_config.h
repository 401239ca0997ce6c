// The scenario's `scheduler.external`: a policy process that decides instead of the built-in
// parts (docs/external-scheduler.md). A value type; the scenario reader fills it.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace schedlab::sched {

class PolicyChannel;

struct ExternalConfig {
  std::string command;            // run with /bin/sh -c; empty: no external scheduler
  double timeout_s = 60;          // longest wait for one reply
  bool skip_invalid = false;      // on_invalid: skip (report and ignore) instead of stop
  std::string options_json = "{}";  // external.options, as a JSON object, for the hello
  // Where it was set, for messages: file:line: field.
  std::string file;
  long line = 0;
  std::string field = "scheduler.external";
  // Tests and fuzzing only (never set from a scenario): when set, the policy is spoken to
  // through the channel this makes instead of a process running `command`.
  std::function<std::unique_ptr<PolicyChannel>()> channel;
};

}  // namespace schedlab::sched
