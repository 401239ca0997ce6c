// Queue order `ftf`: Themis' finish-time fairness (Mahajan et al., NSDI'20). A job's rho is
// its estimated finish time in the shared cluster over its run time alone on a 1/N share
// of the cluster (N = active jobs); the job treated worst (largest rho) goes first. Keys are
// recomputed every `round_s` (Themis' lease rounds) and when the job starts or stops.
#include <algorithm>

#include "sched/builtin_parts.h"
#include "sched/part_args.h"
#include "sched/queue_service.h"

namespace schedlab::sched {
namespace {

class FtfQueue final : public QueueOrder {
 public:
  explicit FtfQueue(engine::Time round) : round_(round) {}

  // Shared finish time: waited so far plus the work left at the current allocation (a
  // waiting job has none; it is assumed to get what it asks for). Ideal time: the traced run
  // time stretched by N, the job's share of the cluster being 1/N of it. The cluster's size
  // divides every job's rho alike and is left out: the key is rho per cluster GPU.
  OrderKey key(const workload::JobSpec& job, const JobLedger& ledger, bool running, engine::Time now) const override {
    const JobLife& life = ledger.life(job.id);
    // A job without GPUs counts as asking for, and holding, one: its rho is then its
    // slowdown in time alone (Themis divides GPU shares; such a job has none to divide).
    const double asked = job.needs_gpu() ? requested_gpus(job) : 1.0;
    const double held =
        running && life.held_milli > 0 && job.needs_gpu() ? static_cast<double>(life.held_milli) / 1000.0 : asked;
    const double total = life.work_total > 0 ? life.work_total : static_cast<double>(job.duration);
    const double left = std::max(total - ledger.work_done(job.id, now), 0.0);
    const double shared = static_cast<double>(std::max<engine::Time>(now - job.submit, 0)) + left * asked / held;
    const double n = static_cast<double>(std::max<std::uint64_t>(ledger.active_jobs(), 1));
    const double ideal = std::max(total, 1.0) * asked * n;
    return {-shared / ideal, static_cast<double>(job.submit)};
  }
  engine::Time rekey_period() const override { return round_; }

 private:
  engine::Time round_;
};

}  // namespace

std::unique_ptr<QueueOrder> make_ftf_queue(const PartArgs& args) {
  const util::ArgReader a = part_args(args, "ftf", {"round_s"});
  return std::make_unique<FtfQueue>(a.seconds("round_s", engine::from_seconds(600), true));
}

}  // namespace schedlab::sched
