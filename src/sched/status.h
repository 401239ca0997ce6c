// A scheduling decision as a value: what happened and why, in words a researcher can read
// (`unschedulable: needs 16 GPUs of one generation, largest fit is 12`).
#pragma once

#include <string>

namespace schedlab::sched {

enum class Code {
  success,        // the job (or some of its tasks) starts now
  wait,           // not now; may start when capacity frees
  unschedulable,  // not now, and preempting others might help
  unresolvable,   // never, on this cluster: the job is dropped
};

struct Status {
  Code code = Code::success;
  std::string reason;

  static Status ok() { return {}; }
  static Status wait(std::string why = {}) { return {Code::wait, std::move(why)}; }
  static Status never(std::string why) { return {Code::unresolvable, std::move(why)}; }
  bool is_ok() const { return code == Code::success; }
};

const char* code_name(Code c);

}  // namespace schedlab::sched
