// Usage per pool, kept up the tree; entitlement recomputed on demand; who is over and how long.
#include "pools/pool_book.h"

#include <algorithm>

#include <fmt/format.h>

namespace schedlab::pools {

namespace {
// A pool holds "more than its entitlement" only beyond rounding.
constexpr double kSlack = 1e-9;
}  // namespace

Amounts amounts_of(const workload::JobSpec& job, std::uint32_t tasks) {
  const double n = tasks;
  const double gpus = job.gpus_per_task == 0 ? 0.0 : job.fractional() ? job.gpu_milli / 1000.0 : job.gpus_per_task;
  return {n * gpus, n * job.cpu_milli / 1000.0, n * job.mem_mib / 1024.0};
}

PoolTree tree_of(const PoolsConfig& config) {
  std::vector<Pool> pools;
  for (const auto& s : config.pools) {
    Pool p;
    p.name = s.name;
    p.parent = s.parent;
    p.type = s.static_reservation ? ReservationType::fixed : ReservationType::elastic;
    p.reservation = s.reservation;
    p.limit = s.limit;
    p.share = s.share;
    p.preemptible = s.preemptible;
    pools.push_back(std::move(p));
  }
  return PoolTree(std::move(pools));
}

PoolBook::PoolBook(const PoolsConfig& config, const Amounts& capacity)
    : config_(config),
      tree_(tree_of(config)),
      alloc_(tree_.size()),
      pending_(tree_.size()),
      entitlement_(tree_.size()),
      usage_(tree_.size()),
      over_(tree_.size(), 0),
      changes_(tree_.size(), 0) {
  recompute(capacity);
  computed_ = false;  // nothing was known yet
}

void PoolBook::add_up(std::vector<Amounts>& v, const PoolTree& tree, std::int32_t pool, const Amounts& delta,
                      double sign) {
  for (std::int32_t p = pool; p >= 0; p = tree[static_cast<std::size_t>(p)].parent) {
    ++changes_[static_cast<std::size_t>(p)];
    for (std::size_t r = 0; r < kResources; ++r) {
      auto& x = v[static_cast<std::size_t>(p)][r];
      x += sign * delta[r];
      if (x < kSlack) x = 0;  // rounding never leaves a pool holding a sliver
    }
  }
}

void PoolBook::assign(workload::JobId job, std::int32_t pool) {
  jobs_[job].pool = pool;
  if (assigned_.size() <= job) assigned_.resize(static_cast<std::size_t>(job) + 1, -1);
  assigned_[job] = pool;
  if (live_.size() <= job) live_.resize(static_cast<std::size_t>(job) + 1, -1);
  live_[job] = pool;
}

std::int32_t PoolBook::pool_of(workload::JobId job) const { return job < live_.size() ? live_[job] : -1; }

void PoolBook::waiting(const workload::JobSpec& job, std::uint32_t tasks) {
  auto it = jobs_.find(job.id);
  if (it == jobs_.end()) return;
  auto& e = it->second;
  add_up(pending_, tree_, e.pool, e.waits, -1);
  e.waits = amounts_of(job, tasks);
  add_up(pending_, tree_, e.pool, e.waits, +1);
}

void PoolBook::started(const workload::JobSpec& job, std::uint32_t tasks) {
  auto it = jobs_.find(job.id);
  if (it == jobs_.end()) return;
  auto& e = it->second;
  const Amounts a = amounts_of(job, tasks);
  Amounts moved{};
  for (std::size_t r = 0; r < kResources; ++r) {
    moved[r] = std::min(a[r], e.waits[r]);
    e.waits[r] -= moved[r];
    e.held[r] += a[r];
  }
  add_up(pending_, tree_, e.pool, moved, -1);
  add_up(alloc_, tree_, e.pool, a, +1);
}

void PoolBook::released(workload::JobId job) {
  auto it = jobs_.find(job);
  if (it == jobs_.end()) return;
  auto& e = it->second;
  add_up(alloc_, tree_, e.pool, e.held, -1);
  e.held = {};
}

void PoolBook::gone(workload::JobId job) {
  auto it = jobs_.find(job);
  if (it == jobs_.end()) return;
  add_up(alloc_, tree_, it->second.pool, it->second.held, -1);
  add_up(pending_, tree_, it->second.pool, it->second.waits, -1);
  jobs_.erase(it);
  live_[job] = -1;
}

void PoolBook::recompute(const Amounts& capacity) {
  for (std::size_t p = 0; p < tree_.size(); ++p) {
    usage_[p].allocation = alloc_[p];
    usage_[p].pending = pending_[p];
  }
  const auto& e = calc_.compute(tree_, capacity, usage_);
  for (std::size_t p = 0; p < tree_.size(); ++p) {
    if (entitlement_[p] != e[p]) ++changes_[p];
    entitlement_[p] = e[p];
    bool over = false;
    for (std::size_t r = 0; r < kResources; ++r) over = over || alloc_[p][r] > e[p][r] * (1 + kSlack) + kSlack;
    over_[p] = over ? over_[p] + 1 : 0;
  }
  computed_ = true;
}

std::int32_t PoolBook::first_exceeded(std::int32_t pool, const Amounts& extra, bool reservation_only,
                                      Resource& which) const {
  for (std::int32_t p = pool; p >= 0; p = tree_[static_cast<std::size_t>(p)].parent) {
    const auto i = static_cast<std::size_t>(p);
    const Amounts& bound = reservation_only ? tree_[i].reservation : entitlement_[i];
    for (std::size_t r = 0; r < kResources; ++r)
      // A pool held to its reservation is held to the resources it reserves: one that
      // reserves GPUs only does not refuse the CPUs its jobs bring along.
      if (extra[r] > 0 && !(reservation_only && bound[r] == 0) &&
          alloc_[i][r] + extra[r] > bound[r] * (1 + kSlack) + kSlack) {
        which = static_cast<Resource>(r);
        return p;
      }
    if (reservation_only) break;  // a reservation is the pool's own guarantee
  }
  return -1;
}

std::optional<std::string> PoolBook::never_within(std::int32_t pool, const Amounts& whole,
                                                 bool reservation_only) const {
  static constexpr const char* kUnits[kResources] = {"GPUs", "CPUs", "GB of memory"};
  for (std::int32_t p = pool; p >= 0; p = tree_[static_cast<std::size_t>(p)].parent) {
    const auto& node = tree_[static_cast<std::size_t>(p)];
    const Amounts& bound = reservation_only ? node.reservation : node.limit;
    for (std::size_t r = 0; r < kResources; ++r)
      if (whole[r] > 0 && !(reservation_only && bound[r] == 0) && whole[r] > bound[r] * (1 + kSlack) + kSlack)
        return fmt::format("needs {:g} {}, more than pool '{}' may ever hold (its {} is {:g})", whole[r], kUnits[r],
                           node.name, reservation_only ? "reservation, as it is not preemptible," : "limit",
                           bound[r]);
    if (reservation_only) break;
  }
  return std::nullopt;
}

}  // namespace schedlab::pools
