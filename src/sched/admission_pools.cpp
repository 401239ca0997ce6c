// Admission `pools` (Peloton): a job starts only within its pool's entitlement, and every
// pool's above it; a non-preemptible job (its own flag, or its pool's) only within its pool's reservation (what
// is guaranteed is never taken back, so nothing else may be started there).
#include "pools/pool_book.h"
#include "sched/builtin_parts.h"

namespace schedlab::sched {
namespace {
class PoolsAdmission final : public Admission {
 public:
  Status admit(const PendingJob& job, const SchedContext& ctx) const override {
    if (!ctx.pools) return Status::ok();
    const auto& book = *ctx.pools;
    const auto pool = book.pool_of(job.id());
    if (pool < 0) return Status::ok();
    const bool guaranteed_only = book.held_to_reservation(pool, *job.spec);
    const auto extra = pools::amounts_of(*job.spec, job.tasks_left);
    pools::Resource which{};
    const auto over = book.first_exceeded(pool, extra, guaranteed_only, which);
    if (over < 0) return Status::ok();
    const auto r = static_cast<std::size_t>(which);
    // Status keeps two numbers: the pool and the bound, rounded; the resource is in the text.
    static constexpr const char* kPatterns[2][3] = {
        {"pool #{} would go above its entitlement of {} GPUs", "pool #{} would go above its entitlement of {} CPUs",
         "pool #{} would go above its entitlement of {} GB of memory"},
        {"its pool (#{}) would go above its reservation of {} GPUs",
         "its pool (#{}) would go above its reservation of {} CPUs",
         "its pool (#{}) would go above its reservation of {} GB of memory"}};
    const auto& bound = guaranteed_only ? book.tree()[static_cast<std::size_t>(over)].reservation : book.entitlement(over);
    return Status::wait(kPatterns[guaranteed_only ? 1 : 0][r], static_cast<std::uint64_t>(over),
                        static_cast<std::uint64_t>(bound[r]));
  }
  std::string refusal(const PendingJob& job, const SchedContext& ctx, const Status& status) const override {
    std::string why = status.reason();
    const auto& book = *ctx.pools;
    const auto pool = static_cast<std::size_t>(book.pool_of(job.id()));
    // The pattern numbers pools; here they have their names.
    for (std::size_t p = book.tree().size(); p-- > 0;) {
      const auto tag = fmt::format("#{}", p);
      if (auto at = why.find(tag); at != std::string::npos) why.replace(at, tag.size(), "'" + book.tree()[p].name + "'");
    }
    const auto own = "'" + book.tree()[pool].name + "'";
    return why.find(own) != std::string::npos ? why : fmt::format("in pool {}: {}", own, why);
  }
  bool blocks_queue() const override { return false; }
  bool refuses_over_pool() const override { return true; }
  std::optional<std::string> never_admits(const PendingJob& job, const pools::PoolBook* book) const override {
    if (!book) return std::nullopt;
    const auto pool = book->pool_of(job.id());
    if (pool < 0) return std::nullopt;
    const bool guaranteed_only = book->held_to_reservation(pool, *job.spec);
    auto why = book->never_within(pool, pools::amounts_of(*job.spec, job.spec->tasks), guaranteed_only);
    if (why) *why = "over its pool: " + *why;
    return why;
  }
};
}  // namespace

std::unique_ptr<Admission> make_pools_admission(const PartArgs&) { return std::make_unique<PoolsAdmission>(); }

}  // namespace schedlab::sched
