// Queue order `gittins`: Tiresias' Gittins index (Gu et al., NSDI'19) over the service the
// jobs of this very trace need, learned online from the jobs submitted so far (never a job
// not yet submitted). A job with attained service a has index
//   G(a) = max over d of P(S - a <= d | S > a) / E[min(S - a, d) | S > a],
// the chance of finishing within d more service per unit of service spent: higher goes
// first. Service is discretized in quanta of `quantum_s`: a is rounded down to a quantum and
// d runs over whole quanta, so a running job's key changes only at quantum boundaries. The
// distribution is rebuilt only at the rounds on which every key is recomputed (`refresh_s`),
// and only once the sample has grown by `rebuild_growth`: keys compared in one queue come
// from one distribution, and a trace of n jobs costs O(log n) rebuilds.
// For the Tiresias simulator's dlas-gpu-gittins (docs/policies.md, D11): `samples:` fixes the
// distribution to a file's job sizes (nothing learned), `index: tiresias` takes the
// simulator's rank (sched/gittins_tiresias.h), and `thresholds:` (with `demote_at:`) first
// splits jobs into las' queues, the index ordering jobs within each.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

#include "sched/builtin_parts.h"
#include "sched/gittins_tiresias.h"
#include "sched/part_args.h"
#include "sched/queue_service.h"
#include "util/yaml_util.h"

namespace schedlab::sched {
namespace {

class GittinsQueue final : public QueueOrder {
 public:
  GittinsQueue(double quantum, ServiceKind kind, engine::Time refresh, double growth, std::vector<double> samples,
               bool tiresias, std::unique_ptr<QueueOrder> levels)
      : quantum_(quantum), kind_(kind), refresh_(refresh), growth_(growth), fixed_(!samples.empty()),
        tiresias_(tiresias), levels_(std::move(levels)) {
    if (fixed_) {
      seen_ = std::move(samples);
      rebuild();
    }
  }

  void job_submitted(const workload::JobSpec& job) override {
    if (fixed_) return;  // the sample file is the distribution
    double need = static_cast<double>(job.duration);
    if (kind_ == ServiceKind::gpu_time) need *= requested_gpus(job);
    seen_.push_back(need);
  }

  OrderKey key(const workload::JobSpec& job, const JobLedger& ledger, bool running, engine::Time now) const override {
    refresh(now);
    const ServiceView s(job, ledger, running, now, kind_);
    const double g = tiresias_ ? rank(sample_index(s, now)) : index(bin_of(s, now));
    // In las' queues: the queue first, then the index; ties follow the job id (submit order).
    if (levels_) return {std::floor(levels_->key(job, ledger, running, now).primary / 2), -g};
    return {-g, static_cast<double>(job.submit)};
  }
  engine::Time rekey_period() const override { return fixed_ ? 0 : refresh_; }
  bool rekeys_running_at_events() const override { return levels_ && levels_->rekeys_running_at_events(); }

  engine::Time next_change(const workload::JobSpec& job, const JobLedger& ledger, bool running,
                           engine::Time now) const override {
    // The simulator looks at ranks only where it looks at queues.
    if (rekeys_running_at_events()) return levels_->next_change(job, ledger, running, now);
    const engine::Time queue = levels_ ? levels_->next_change(job, ledger, running, now) : engine::kTimeMax;
    ServiceView s(job, ledger, running, now, kind_);
    if (!s.live) return queue;
    if (!tiresias_) return std::min(queue, s.reaches(static_cast<double>(bin_of(s, now) + 1) * quantum_));
    const std::size_t i = sample_index(s, now);
    if (i >= sorted_.size()) return queue;
    return std::min(queue, s.reaches(std::ceil(sorted_[i] / kSecond) * kSecond));
  }

  // The index per service-second at attained-service bin `b` (0 when no sampled job needs
  // more than b quanta: nothing is known beyond the largest sample).
  double index(std::uint64_t b) const {
    if (auto it = cache_.find(b); it != cache_.end()) return it->second;
    const double a = static_cast<double>(b) * quantum_;
    const std::size_t n = sorted_.size();
    std::size_t k = static_cast<std::size_t>(std::upper_bound(sorted_.begin(), sorted_.end(), a) - sorted_.begin());
    const std::size_t first = k;
    double best = 0;
    // Only horizons that end just after some job completes can be best: between them the
    // chance stays flat while the expected cost grows.
    while (k < n) {
      const double end = std::ceil(sorted_[k] / quantum_) * quantum_;
      while (k < n && sorted_[k] <= end) ++k;
      const double finished = static_cast<double>(k - first);
      const double cost = (prefix_[k] - prefix_[first]) - finished * a + static_cast<double>(n - k) * (end - a);
      if (cost > 0) best = std::max(best, finished / cost);
    }
    best *= 1e6;  // per service-second
    cache_.emplace(b, best);
    return best;
  }

 private:
  static constexpr double kSecond = 1e6;

  // index: tiresias: samples at most the attained service in whole seconds, rounded down (the
  // simulator's int(run time x GPUs)); the first sample above it names the rank.
  std::size_t sample_index(const ServiceView& s, engine::Time now) const {
    const double a = std::floor(std::max(s.at(now), 0.0) / kSecond) * kSecond;
    return static_cast<std::size_t>(std::upper_bound(sorted_.begin(), sorted_.end(), a) - sorted_.begin());
  }
  // The simulator's rank for sample index i (0 from the largest sample on), cached by i.
  double rank(std::size_t i) const {
    if (i >= sorted_.size()) return 0;
    if (auto it = cache_.find(i); it != cache_.end()) return it->second;
    return cache_.emplace(i, tiresias_rank(sorted_, prefix_, quantum_, i)).first->second;
  }

  std::uint64_t bin_of(const ServiceView& s, engine::Time now) const {
    auto b = static_cast<std::uint64_t>(std::max(s.at(now), 0.0) / quantum_);
    // Decided like the timer that next_change() sets, so that the key at that instant moves.
    if (s.reached(static_cast<double>(b + 1) * quantum_, now)) ++b;
    while (b > 0 && !s.reached(static_cast<double>(b) * quantum_, now)) --b;
    return b;
  }

  // The first key computed at or after a round's instant (the round recomputes every key at
  // that instant) may rebuild the distribution; the very first key builds it.
  void refresh(engine::Time now) const {
    if (fixed_ || (!sorted_.empty() && now < next_refresh_)) return;
    next_refresh_ = util::add_time(now, refresh_);
    if (sorted_.empty() || static_cast<double>(seen_.size()) >= growth_ * static_cast<double>(sorted_.size()))
      rebuild();
  }

  void rebuild() const {
    sorted_ = seen_;
    std::sort(sorted_.begin(), sorted_.end());
    prefix_.assign(sorted_.size() + 1, 0.0);
    for (std::size_t i = 0; i < sorted_.size(); ++i) prefix_[i + 1] = prefix_[i] + sorted_[i];
    cache_.clear();
  }

  double quantum_;  // service microseconds (or GPU-microseconds) per bin
  ServiceKind kind_;
  engine::Time refresh_;
  double growth_;
  bool fixed_;     // samples: the distribution is the file's, never rebuilt
  bool tiresias_;  // index: tiresias
  std::unique_ptr<QueueOrder> levels_;  // thresholds: las' queues, ranked within; else none
  std::vector<double> seen_;  // every submitted job's service need, in submit order
  // The table keys are computed from, rebuilt as keys are computed (key() is const to the
  // scheduler, hence mutable): the sample, its prefix sums, the index per bin.
  mutable std::vector<double> sorted_;
  mutable std::vector<double> prefix_;
  mutable std::unordered_map<std::uint64_t, double> cache_;  // by bin (or sample index: tiresias)
  mutable engine::Time next_refresh_ = 0;
};

}  // namespace

std::unique_ptr<QueueOrder> make_gittins_queue(const PartArgs& args) {
  const util::ArgReader a = part_args(args, "gittins", {"quantum_s", "service", "refresh_s", "rebuild_growth", "samples",
                                                        "index", "thresholds", "demote_at"});
  const auto quantum = static_cast<double>(a.seconds("quantum_s", engine::from_seconds(3600), true));
  auto kind =
      a.choice("service", "gpu-time", {"time", "gpu-time"}) == "time" ? ServiceKind::time : ServiceKind::gpu_time;
  const engine::Time refresh = a.seconds("refresh_s", engine::from_seconds(3600), true);
  const double growth = a.real("rebuild_growth", 1.25, 1.0, 1e6, true);
  std::vector<double> samples;
  if (const std::string file = a.text("samples", ""); !file.empty()) {
    if (a.find("refresh_s") || a.find("rebuild_growth"))
      a.fail("samples", "refresh_s and rebuild_growth rebuild a distribution learned from the trace; with samples "
                        "there is none to rebuild: drop them");
    samples = read_gittins_samples(util::resolve_path(a.file(), file));
  }
  const bool tiresias = a.choice("index", "gittins", {"gittins", "tiresias"}) == "tiresias";
  if (tiresias && (std::fmod(quantum, 1e6) != 0))
    a.fail("quantum_s", "index: tiresias counts in whole seconds: give a whole number of seconds");
  std::unique_ptr<QueueOrder> levels;
  const bool py2 = a.choice("demote_at", "exact", {"exact", "tiresias-py2"}) == "tiresias-py2";
  if (a.find("thresholds"))
    levels = make_las_levels(las_thresholds(a), kind, py2);
  else if (a.find("demote_at"))
    a.fail("demote_at", "moves jobs between the queues that thresholds make: give thresholds");
  return std::make_unique<GittinsQueue>(quantum, kind, refresh, growth, std::move(samples), tiresias,
                                        std::move(levels));
}

}  // namespace schedlab::sched
