// Names of stop causes, for logs and stories.
#include "sched/decisions.h"

namespace schedlab::sched {

const char* cause_name(StopCause c) {
  switch (c) {
    case StopCause::preempted: return "preempted";
    case StopCause::host_failed: return "host failed";
    case StopCause::gpu_failed: return "GPU failed";
    case StopCause::task_failed: return "task failed";
    case StopCause::reclaimed: return "reclaimed by its pool";
    case StopCause::killed: return "killed";
    case StopCause::resized: return "resized";
  }
  return "?";
}

}  // namespace schedlab::sched
