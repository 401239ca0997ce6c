// Admission `incremental`: tasks start as they fit, whatever the job's gang flag.
#include "sched/builtin_parts.h"

namespace schedlab::sched {
namespace {
class IncrementalAdmission final : public Admission {
 public:
  Status admit(const PendingJob&, const SchedContext&) const override { return Status::ok(); }
  std::optional<std::uint64_t> admits_with_free(const PendingJob&) const override { return 0; }
};
}  // namespace

std::unique_ptr<Admission> make_incremental_admission(const PartArgs&) {
  return std::make_unique<IncrementalAdmission>();
}

}  // namespace schedlab::sched
