// Names of job states, for results files and logs.
#include "sched/job_life.h"

namespace schedlab::sched {

const char* state_name(JobState s) {
  switch (s) {
    case JobState::pending: return "pending";
    case JobState::running: return "running";
    case JobState::stopping: return "stopping";
    case JobState::finished: return "finished";
    case JobState::failed: return "failed";
    case JobState::dropped: return "dropped";
  }
  return "?";
}

}  // namespace schedlab::sched
