// A scheduling decision as a value: what happened and why, in words a researcher can read
// (`unschedulable: needs 16 GPUs of one generation, largest fit is 12`). Decisions made on
// every pass keep their numbers and a pattern, and are put into words only when asked.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>

namespace schedlab::sched {

enum class Code {
  success,        // the job (or some of its tasks) starts now
  wait,           // not now; may start when capacity frees
  unschedulable,  // not now, and preempting others might help
  unresolvable,   // never, on this cluster: the job is dropped
};

class Status {
 public:
  Code code = Code::success;

  Status() = default;
  static Status ok() { return {}; }
  static Status wait(std::string why = {}) { return Status(Code::wait, std::move(why)); }
  // `pattern` is a string literal with two {} for `a` and `b`.
  static Status wait(const char* pattern, std::uint64_t a, std::uint64_t b) {
    Status s(Code::wait, {});
    s.pattern_ = pattern;
    s.a_ = a;
    s.b_ = b;
    return s;
  }
  static Status never(std::string why) { return Status(Code::unresolvable, std::move(why)); }
  bool is_ok() const { return code == Code::success; }
  std::string reason() const { return pattern_ ? fmt::format(fmt::runtime(pattern_), a_, b_) : text_; }

 private:
  Status(Code c, std::string text) : code(c), text_(std::move(text)) {}

  std::string text_;
  const char* pattern_ = nullptr;
  std::uint64_t a_ = 0, b_ = 0;
};

const char* code_name(Code c);

}  // namespace schedlab::sched
