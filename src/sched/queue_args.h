// Reading a queue order's `scheduler.args.<part>` settings: every arg name checked (a typo is
// answered with the closest valid name), every number through util/checked.h, and every
// error naming the arg as `scheduler.args.<part>.<arg>` (the scenario reader adds file:line).
#pragma once

#include <string>
#include <vector>

#include "engine/time.h"
#include "sched/parts.h"

namespace schedlab::sched {

class QueueArgs {
 public:
  // Throws InputError for an arg name not in `known`.
  QueueArgs(std::string part, const PartArgs& args, std::vector<std::string> known);

  // A duration in seconds, to microseconds; `positive` refuses 0.
  engine::Time seconds(const std::string& name, double fallback_s, bool positive) const;
  // A whole number in [lo, hi].
  std::int64_t integer(const std::string& name, std::int64_t fallback, std::int64_t lo, std::int64_t hi) const;
  // A finite number in [lo, hi] (`lo_open`: excluding lo).
  double real(const std::string& name, double fallback, double lo, double hi, bool lo_open) const;
  // One of `valid`.
  std::string choice(const std::string& name, const std::string& fallback, const std::vector<std::string>& valid) const;
  // A list of durations in seconds, given as flow text ("[3600, 7200]") or one number, to
  // microseconds; each at most 100 years.
  std::vector<engine::Time> seconds_list(const std::string& name, const std::vector<double>& fallback_s) const;

  // "scheduler.args.<part>.<name>", the field errors name.
  std::string field(const std::string& name) const;
  [[noreturn]] void fail(const std::string& name, const std::string& what) const;

 private:
  const std::string* find(const std::string& name) const;

  std::string part_;
  const PartArgs* args_;
};

}  // namespace schedlab::sched
