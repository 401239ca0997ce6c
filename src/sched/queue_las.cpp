// Queue order `las`: Tiresias' discretized least-attained-service (Gu et al., NSDI'19).
// Thresholds on attained service (wall time, or GPU-time as in Tiresias' 2D-LAS) split jobs
// into queues; a job starts in the top queue and moves down as it crosses each threshold
// while running. Within a queue, running jobs stay ahead of waiting ones, and jobs keep the
// order in which they entered the queue. A waiting job starved for `promote_after` times its
// attained run time goes back to the top queue, its service counted afresh from then.
// `order: list` keeps the Tiresias simulator's list instead (docs/policies.md, D2/D3): a job
// arriving or demoted is appended at its queue's tail, running or not, and after every pass the
// jobs left waiting move, in their order, behind the running ones of their queue.
// `demote_at: tiresias-py2` takes the simulator's demotion instants instead (D10): a running job
// is looked at only at instants where something happens, moves down at most one queue there,
// and the simulator's next look is its limit less the job's wall run time, over its GPUs,
// rounded down to whole seconds (Python 2's integer division).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "sched/builtin_parts.h"
#include "sched/part_args.h"
#include "sched/queue_service.h"

namespace schedlab::sched {
namespace {

class LasQueue final : public QueueOrder {
 public:
  LasQueue(std::vector<double> thresholds, ServiceKind kind, std::int64_t promote_after, bool list, bool py2,
           bool behind = true)
      : thresholds_(std::move(thresholds)),
        kind_(kind),
        promote_after_(promote_after),
        list_(list),
        behind_(behind),
        py2_(py2) {}

  OrderKey key(const workload::JobSpec& job, const JobLedger& ledger, bool running, engine::Time now) const override {
    Track& t = track(job);
    const JobLife& life = ledger.life(job.id);
    ServiceView s(job, ledger, running, now, kind_);
    s.before -= t.base;
    std::size_t q = py2_ ? looked_at(t, s, life, now) : queue_of(s, now);
    if (q > 0 && !s.live && promote_after_ > 0) {
      const engine::Time due = promotion_due(life);
      if (due <= now) {
        // Starved: back to the top queue, entered when it became due; service counts from 0.
        t.base += s.before;
        t.queue = 0;
        t.entered = due;
        if (list_) t.seq = tail(now);
        return list_ ? OrderKey{0, t.seq} : OrderKey{1, static_cast<double>(t.entered)};
      }
    }
    if (q > t.queue) {
      // Crossed a threshold: in the current run, at the exact instant it reached it; else
      // (it crossed while saving a checkpoint) when that run ended and it began to wait.
      const double crossed = thresholds_[q - 1];
      t.entered = py2_ ? now : s.live && s.before < crossed ? s.reaches(crossed) : life.pending_since;
      t.queue = q;
      if (list_) t.seq = tail(now);
    }
    if (list_) return {static_cast<double>(q), t.seq};
    return {static_cast<double>(2 * q + (running ? 0 : 1)), static_cast<double>(t.entered)};
  }

  // order: arrival keeps the list as it is: a waiting job stays ahead of younger running ones.
  bool moves_waiting_behind_running() const override { return list_ && behind_; }
  bool rekeys_running_at_events() const override { return py2_; }
  OrderKey behind_running(const workload::JobSpec& job, const OrderKey& key) override {
    // Called for the waiting jobs in queue order: fresh places, in that order, behind every
    // place given so far (the running jobs'); later tails go behind these.
    Track& t = track(job);
    t.seq = static_cast<double>(++places_);
    tail_at_ = engine::kTimeMax;
    return {key.primary, t.seq};
  }

  engine::Time next_change(const workload::JobSpec& job, const JobLedger& ledger, bool running,
                           engine::Time now) const override {
    const Track& t = track(job);
    ServiceView s(job, ledger, running, now, kind_);
    if (py2_) return next_look(job, ledger, running, now, t.queue, s);
    s.before -= t.base;
    const std::size_t q = queue_of(s, now);
    if (s.live) return q < thresholds_.size() ? s.reaches(thresholds_[q]) : engine::kTimeMax;
    if (q > 0 && promote_after_ > 0) {
      const engine::Time due = promotion_due(ledger.life(job.id));
      return due > now ? due : engine::kTimeMax;
    }
    return engine::kTimeMax;
  }

 private:
  // What the ledger does not keep: the queue a job is in, since when, and the service it
  // had at its last promotion. Updated only as keys are computed, in the scheduler's
  // deterministic order; key() is const to the scheduler, hence mutable.
  struct Track {
    bool seen = false;
    std::size_t queue = 0;
    engine::Time entered = 0;
    double base = 0;
    double seq = 0;  // order: list: its place in its queue's list
  };

  Track& track(const workload::JobSpec& job) const {
    if (tracks_.size() <= job.id) tracks_.resize(job.id + 1);
    Track& t = tracks_[job.id];
    if (!t.seen) {
      t.seen = true;
      t.entered = job.submit;
      if (list_) t.seq = tail(job.submit);
    }
    return t;
  }

  // order: list: a place at the tail of a list. Jobs that reach a tail at one instant share
  // it and keep job id order among them (ids follow the trace's order), as the simulator
  // appends arrivals in trace order and demotions in the order jobs arrived.
  double tail(engine::Time now) const {
    if (now != tail_at_) {
      tail_at_ = now;
      tail_place_ = static_cast<double>(++places_);
    }
    return tail_place_;
  }

  // demote_at: tiresias-py2: the queue of a job looked at now. Only a job running since an
  // earlier instant moves (the simulator checks running jobs before it decides), one queue.
  std::size_t looked_at(const Track& t, const ServiceView& s, const JobLife& life, engine::Time now) const {
    const bool ran = life.run_start >= 0 && life.run_start < now;
    return t.queue + (ran && t.queue < thresholds_.size() && s.reached(thresholds_[t.queue], now) ? 1 : 0);
  }

  // demote_at: tiresias-py2: when the simulator next looks at a running job: its limit less its
  // wall run time (not its GPU-time), over its GPUs under gpu-time, in whole seconds rounded down.
  engine::Time next_look(const workload::JobSpec& job, const JobLedger& ledger, bool running, engine::Time now,
                         std::size_t q, const ServiceView& s) const {
    if (!s.live || q >= thresholds_.size()) return engine::kTimeMax;
    const double wall = ServiceView(job, ledger, running, now, ServiceKind::time).at(now);
    const double per_second = engine::from_seconds(1) * (kind_ == ServiceKind::gpu_time ? s.rate : 1.0);
    const double seconds = std::floor((thresholds_[q] - wall) / per_second);
    return util::add_time(now, util::time_from_double_clamped(std::max(seconds, 0.0) * engine::from_seconds(1)));
  }

  std::size_t queue_of(const ServiceView& s, engine::Time now) const {
    std::size_t q = 0;
    while (q < thresholds_.size() && s.reached(thresholds_[q], now)) ++q;
    return q;
  }

  // A waiting job is due for promotion once it has waited `promote_after` times its attained
  // run time (wall time, all runs).
  engine::Time promotion_due(const JobLife& life) const {
    return util::add_time(life.pending_since, util::mul_time(life.attained, promote_after_));
  }

  std::vector<double> thresholds_;  // service microseconds (or GPU-microseconds), increasing
  ServiceKind kind_;
  std::int64_t promote_after_;
  bool list_;
  bool behind_;  // order: list moves waiting jobs behind running ones after a pass; arrival does not
  bool py2_;  // demote_at: tiresias-py2
  mutable std::vector<Track> tracks_;  // by job id
  mutable std::uint64_t places_ = 0;   // order: list: the last place given
  mutable engine::Time tail_at_ = engine::kTimeMax;
  mutable double tail_place_ = 0;
};

}  // namespace

std::unique_ptr<QueueOrder> make_las_levels(std::vector<double> thresholds, ServiceKind kind, bool py2) {
  return std::make_unique<LasQueue>(std::move(thresholds), kind, 0, false, py2);
}

std::vector<double> las_thresholds(const util::ArgReader& a) {
  auto limits = a.seconds_list("thresholds", {3600, 7200, 18000});
  for (std::size_t i = 0; i < limits.size(); ++i) {
    if (limits[i] <= 0 || (i > 0 && limits[i] <= limits[i - 1])) {
      std::string list;
      for (auto l : limits) list += (list.empty() ? "" : ", ") + fmt::format("{}", engine::to_seconds(l));
      a.fail("thresholds", fmt::format("[{}] must be positive and strictly increasing (item {} is {})", list, i + 1,
                                       engine::to_seconds(limits[i])));
    }
  }
  return {limits.begin(), limits.end()};
}

std::unique_ptr<QueueOrder> make_las_queue(const PartArgs& args) {
  const util::ArgReader a = part_args(args, "las", {"thresholds", "service", "promote_after", "order", "demote_at"});
  std::vector<double> thresholds = las_thresholds(a);
  auto kind =
      a.choice("service", "gpu-time", {"time", "gpu-time"}) == "time" ? ServiceKind::time : ServiceKind::gpu_time;
  auto promote = a.integer("promote_after", 0, 0, 1'000'000);
  // arrival: the Pollux artifact's Tiresias (its lists are never reordered; docs/elastic.md).
  const std::string order = a.choice("order", "entered", {"entered", "list", "arrival"});
  const bool list = order != "entered";
  const bool py2 = a.choice("demote_at", "exact", {"exact", "tiresias-py2"}) == "tiresias-py2";
  if (py2 && promote > 0)
    a.fail("demote_at", "tiresias-py2 does not combine with promote_after (the simulator's promotion restarts the "
                        "wall time its next look counts from; not modelled)");
  return std::make_unique<LasQueue>(std::move(thresholds), kind, promote, list, py2, order != "arrival");
}

}  // namespace schedlab::sched
