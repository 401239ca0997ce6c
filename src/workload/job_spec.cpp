// The names of job kinds.
#include "workload/job_spec.h"

namespace schedlab::workload {

const char* kind_name(JobKind k) {
  switch (k) {
    case JobKind::batch: return "batch";
    case JobKind::service: return "service";
    case JobKind::cron: return "cron";
  }
  return "batch";
}

}  // namespace schedlab::workload
