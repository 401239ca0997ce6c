// Backfill `none`: strict queue order; the first job that cannot start blocks the rest.
#include "sched/builtin_parts.h"

namespace schedlab::sched {
namespace {
class NoBackfill final : public Backfill {
 public:
  std::size_t max_scan() const override { return 0; }
};
}  // namespace

std::unique_ptr<Backfill> make_no_backfill(const PartArgs&) { return std::make_unique<NoBackfill>(); }

}  // namespace schedlab::sched
