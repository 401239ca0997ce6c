// StringPool interning, and the names of job kinds.
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

Label StringPool::intern(std::string_view s) {
  auto it = index_.find(std::string(s));
  if (it != index_.end()) return it->second;
  Label l = static_cast<Label>(strings_.size());
  strings_.emplace_back(s);
  index_.emplace(strings_.back(), l);
  return l;
}

}  // namespace schedlab::workload
