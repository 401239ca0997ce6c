// The decision step shared by the resizing policies (`scheduler.policy: optimus | pollux | afs`,
// docs/elastic.md): at every arrival, end, requeue and freed GPU it asks its policy for every
// job's GPU count at once (running jobs first, in queue-key order, then waiting ones in queue
// order), then realises the counts: a running job whose count changes is resized (a stop with
// cause `resized`, its GPUs freed at once, and a start at the new count in the same pass), a
// waiting job given GPUs starts. Admission, backfill and preemption parts take no part; filters
// still say which GPU models a job may use. A policy implements `plan` only.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sched/decision_step.h"
#include "sched/job_listener.h"
#include "sched/scheduler.h"

namespace schedlab::sched {

// One job as a resizing policy sees it when it plans.
struct ElasticJobView {
  const workload::JobSpec* spec = nullptr;
  std::uint64_t held = 0;     // GPUs it runs on now; 0 = waiting
  double remaining = 0;       // work left (the perf model's units: time at speed 1)
  double work_total = 0;      // its whole work, same units
  double age_s = 0;           // seconds since it was submitted
  std::uint32_t resizes = 0;  // resizes so far
};

class ElasticStep : public DecisionStep, public JobListener {
 public:
  ElasticStep(Scheduler& s, std::string policy) : s_(s), policy_(std::move(policy)) {}

  void decide(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
              std::vector<StopDecision>& stops) final;
  bool resizes() const final { return true; }
  std::optional<std::string> refuses(const PendingJob& job) const final;

  void job_submitted(const PendingJob& /*job*/) final { dirty_ = true; }
  void job_requeued(const PendingJob& /*job*/) final { dirty_ = true; }
  void job_ended(workload::JobId id, bool /*was_running*/) final;
  void job_forgotten(workload::JobId id) final;
  // A re-plan the policy asked for (wake_at).
  void own_timer(engine::Time /*now*/) final { dirty_ = true; }

 protected:
  // Each job's GPUs (0: it waits), in the order of `jobs`: a running job at least its fewest
  // (min_size), never above max_size, the sum at most `capacity` (free GPUs plus those held).
  virtual std::vector<std::uint64_t> plan(const std::vector<ElasticJobView>& jobs, std::uint64_t capacity) = 0;
  // The job's speed on n GPUs as the perf model gives it, on the tightest packing of n GPUs
  // over the cluster's hosts in id order; memoised per job and size.
  double speed(const workload::JobSpec& job, std::uint64_t n) {
    if (job.id < memo_.size()) {  // known already: the plans' hot path, inline
      const auto& known = memo_[job.id].speed;
      if (n < known.size() && known[n] >= 0) return known[n];
    }
    return speed_asked(job, n);
  }
  // speed x Pollux's goodput ratio on that packing at the start of progress step `step`
  // (perf/goodput_steps.h), the figure the simulator charges a batch-adapting policy's runs.
  double goodput(const workload::JobSpec& job, std::uint64_t n, int step);
  // The instant being planned (valid inside plan), and a re-plan asked for at `t` (> now).
  engine::Time now() const { return now_; }
  void wake_at(engine::Time t);

 private:
  const cluster::Placement& packed(std::uint64_t n);
  double speed_asked(const workload::JobSpec& job, std::uint64_t n);  // memoises it
  // Places `want` tasks of the job (at least `need`) and records the start; false when fewer fit.
  bool start(PendingJob& job, std::uint64_t want, std::uint64_t need, engine::Time now, cluster::AllocationState& alloc,
             std::vector<StartDecision>& starts);

  // True when the job's tasks cannot reach `need` GPUs on the models of `mask` whatever the
  // placement policy: a host takes no more tasks than its free GPUs, CPUs and memory allow,
  // which is what usable_gpus counts. Such an attempt would only be rolled back, and a plan
  // that sizes waiting jobs the CPUs cannot hold would try it at every decision.
  bool short_of(const PendingJob& job, std::uint64_t tasks, std::uint64_t need, cluster::ModelMask mask,
                const cluster::AllocationState& alloc);

  Scheduler& s_;
  std::string policy_;
  bool dirty_ = true;
  engine::Time now_ = 0;
  std::uint64_t epoch_ = ~std::uint64_t{0};  // the release epoch the last plan saw
  // Per job, by id (ids are dense), so that finding one is an index and forgetting one O(1):
  // speeds by GPU count (< 0: not asked yet), goodputs by (n << 8 | percent).
  struct JobMemo {
    std::vector<double> speed;
    std::unordered_map<std::uint64_t, double> goodput;
  };
  JobMemo& memo_of(workload::JobId id);
  std::vector<JobMemo> memo_;
  // A plan's jobs: running ones sorted by queue key, then waiting ones in queue order (kept
  // between plans for their storage).
  struct Entry {
    Scheduler::QueueKey key;
    const workload::JobSpec* spec;
    std::uint64_t held;  // GPUs it runs on now; 0 = waiting
    std::map<Scheduler::QueueKey, PendingJob>::iterator queued;
  };
  // The running jobs in queue-key order, appended to `jobs` (emptied first), their GPUs added
  // to `capacity`.
  void running_in_order(std::vector<Entry>& jobs, std::uint64_t& capacity);
  std::vector<Entry> jobs_;
  std::vector<Entry> here_;                 // the running jobs as found
  std::vector<workload::JobId> last_order_; // the running jobs of the last plan, in order
  // By job id: (round it was seen running, its place in here_); round + 1: already taken.
  std::vector<std::pair<std::uint64_t, std::uint32_t>> mark_;
  std::uint64_t round_ = 0;
  std::vector<ElasticJobView> views_;
  std::vector<std::size_t> resized_;
  std::vector<cluster::Placement> packed_;  // by GPU count
  // The usable GPUs short_of counted last, valid while the allocation's version is the same.
  struct Usable {
    std::uint64_t version = ~std::uint64_t{0};
    cluster::ModelMask mask = 0;
    std::uint16_t gpus_per_task = 0;
    cluster::TaskNeed need;
    std::uint64_t gpus = 0;
  };
  Usable usable_;
};

}  // namespace schedlab::sched
