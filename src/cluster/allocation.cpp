// Allocation state updates keep every index consistent; queries read the buckets.
#include "cluster/allocation.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <limits>

namespace schedlab::cluster {

namespace {
// At most this many free-CPU buckets per host class: one per CPU up to 127-CPU hosts, wider
// ones (several CPUs each) beyond, so that the index stays small on hosts of thousands of CPUs.
constexpr std::uint32_t kCpuBuckets = 128;
}  // namespace

AllocationState::AllocationState(const Topology& topo) : topo_(&topo), racks_(topo.racks().size()) {
  spare_logs_.reserve(8);  // transactions nest a few deep (a dry run's placement attempts)
  const std::size_t models = topo.catalog().size();
  buckets_.resize(models);
  const std::size_t hosts = topo.hosts().size();
  for (ModelId m = 0; m < models; ++m) buckets_[m].assign(topo.max_host_gpus(m) + 1u, HostSet(hosts));
  rack_free_.assign(models * racks_, 0);
  free_by_model_.assign(models, 0);
  shared_hosts_.assign(models, HostSet(hosts));
  short_.assign(models, HostSet(hosts));
  whole_free_.resize(hosts);
  share_used_.resize(hosts);
  free_cpu_.resize(hosts);
  free_mem_.resize(hosts);
  const std::uint64_t span = std::uint64_t{topo.max_host_cpu_milli()} + 1;
  cpu_unit_ = static_cast<std::uint32_t>(std::max<std::uint64_t>(1000, (span + kCpuBuckets - 1) / kCpuBuckets));
  cpu_buckets_.resize(topo.classes());
  for (std::size_t c = 0; c < topo.classes(); ++c)
    cpu_buckets_[c].assign(cpu_bucket_of(topo.max_host_cpu_milli(c)) + 1, HostSet(hosts));
  for (HostId h = 0; h < hosts; ++h) {
    const auto& info = topo.host(h);
    whole_free_[h] = info.gpus;
    buckets_[info.model][info.gpus].insert(h);
    rack_free_[info.model * racks_ + info.rack] += info.gpus;
    free_by_model_[info.model] += info.gpus;
    free_total_ += info.gpus;
    share_used_[h].assign(info.gpus, 0);
    free_cpu_[h] = info.cpu_milli;
    free_mem_[h] = info.mem_mib;
    cpu_buckets_[topo.class_of(h)][cpu_bucket_of(info.cpu_milli)].insert(h);
  }
}

std::uint64_t AllocationState::free_gpus(ModelMask mask) const {
  // The mask's models only (a job allows one or a few of the catalog's): bit by bit, lowest first.
  if (free_by_model_.size() < 64) mask &= (ModelMask{1} << free_by_model_.size()) - 1;
  std::uint64_t n = 0;
  for (; mask != 0; mask &= mask - 1) n += free_by_model_[static_cast<std::size_t>(std::countr_zero(mask))];
  return n;
}

std::uint32_t AllocationState::task_room(HostId h, std::uint16_t g, const TaskNeed& need) const {
  std::uint32_t n = g ? whole_free_[h] / g : std::numeric_limits<std::uint32_t>::max();
  if (need.cpu_milli) n = std::min(n, free_cpu_[h] / need.cpu_milli);
  if (need.mem_mib) n = std::min(n, free_mem_[h] / need.mem_mib);
  return g == 0 && need.none() ? 0 : n;
}

std::optional<HostId> AllocationState::first_fitting(const HostSet& set, const TaskNeed& need, HostId below) const {
  for (HostId h : set) {
    if (h >= below) break;
    if (fits(h, need)) return h;
  }
  return std::nullopt;
}

std::optional<HostId> AllocationState::first_host_with(ModelId m, std::uint16_t k, const TaskNeed& need) const {
  std::optional<HostId> best;
  const auto& b = buckets_[m];
  for (std::size_t f = std::max<std::size_t>(k, 1); f < b.size(); ++f) {
    if (b[f].empty()) continue;
    if (need.none()) {
      if (!best || *b[f].first() < *best) best = *b[f].first();
    } else if (auto h = first_fitting(b[f], need, best ? *best : ~HostId{0})) {
      best = h;
    }
  }
  return best;
}

std::optional<HostId> AllocationState::tightest_host_with(ModelId m, std::uint16_t k, const TaskNeed& need) const {
  const auto& b = buckets_[m];
  for (std::size_t f = std::max<std::size_t>(k, 1); f < b.size(); ++f) {
    if (b[f].empty()) continue;
    if (need.none()) return *b[f].first();
    if (auto h = first_fitting(b[f], need)) return h;
  }
  return std::nullopt;
}

std::optional<HostId> AllocationState::roomiest_host_with(ModelId m, std::uint16_t k, const TaskNeed& need) const {
  const auto& b = buckets_[m];
  for (std::size_t f = b.size(); f-- > std::max<std::size_t>(k, 1);) {
    if (b[f].empty()) continue;
    if (need.none()) return *b[f].first();
    if (auto h = first_fitting(b[f], need)) return h;
  }
  return std::nullopt;
}

std::uint64_t AllocationState::usable_gpus(ModelId m, std::uint16_t k, const TaskNeed& need) const {
  std::uint64_t n = 0;
  const auto& b = buckets_[m];
  const std::size_t from = std::max<std::size_t>(k, 1);
  for (std::size_t f = from; f < b.size(); ++f) n += f * b[f].size();
  if (need.none()) return n;
  // A host counts the GPUs of the tasks its CPUs and memory allow, at most its free GPUs.
  auto correct = [&](HostId h) {
    const std::uint64_t free = whole_free_[h];
    if (free < from) return;
    const std::uint64_t usable = std::min<std::uint64_t>(free, std::uint64_t{task_room(h, static_cast<std::uint16_t>(from), need)} * from);
    n -= free - usable;
  };
  // Asking no more per GPU than every host of m has, a task fits any host that is not short;
  // otherwise every host with room for one task is looked at.
  const bool within_share = need.cpu_milli <= std::uint64_t{from} * topo_->min_cpu_milli_per_gpu(m) &&
                            need.mem_mib <= std::uint64_t{from} * topo_->min_mem_mib_per_gpu(m);
  if (within_share) {
    for (HostId h : short_[m]) correct(h);
  } else {
    for (std::size_t f = from; f < b.size(); ++f)
      for (HostId h : b[f]) correct(h);
  }
  return n;
}

std::optional<HostId> AllocationState::cpu_host(ModelMask mask, const TaskNeed& need, HostPick pick,
                                                const std::vector<HostId>* avoid) const {
  std::optional<HostId> best;
  std::uint32_t best_free = 0;
  auto ok = [&](HostId h) {
    return fits(h, need) && (!avoid || std::find(avoid->begin(), avoid->end(), h) == avoid->end());
  };
  // True when host h (that fits) ranks before the best so far.
  auto better = [&](HostId h) {
    if (!best) return true;
    const std::uint32_t f = free_cpu_[h];
    switch (pick) {
      case HostPick::lowest: return h < *best;
      case HostPick::tightest: return f != best_free ? f < best_free : h < *best;
      case HostPick::roomiest: return f != best_free ? f > best_free : h < *best;
    }
    return false;
  };
  auto offer = [&](HostId h) {
    if (better(h)) {
      best = h;
      best_free = free_cpu_[h];
    }
  };
  const std::size_t b0 = cpu_bucket_of(need.cpu_milli);
  topo_->for_each_class(mask, [&](std::size_t cls) {
    const auto& buckets = cpu_buckets_[cls];
    if (b0 >= buckets.size()) return;
    switch (pick) {
      case HostPick::lowest:
        // The lowest fitting host of each bucket; the lowest of those.
        for (std::size_t b = b0; b < buckets.size(); ++b)
          for (HostId h : buckets[b]) {
            if (best && h >= *best) break;
            if (ok(h)) {
              offer(h);
              break;
            }
          }
        return;
      case HostPick::tightest:
        // Buckets hold ranges of free CPUs, ascending: the first bucket with a fitting host
        // holds this class's tightest.
        for (std::size_t b = b0; b < buckets.size(); ++b) {
          bool found = false;
          for (HostId h : buckets[b])
            if (ok(h)) {
              offer(h);
              found = true;
              if (free_cpu_[h] == b * cpu_unit_) break;  // none in this bucket is tighter
            }
          if (found) return;
        }
        return;
      case HostPick::roomiest:
        for (std::size_t b = buckets.size(); b-- > b0;) {
          bool found = false;
          for (HostId h : buckets[b])
            if (ok(h)) {
              offer(h);
              found = true;
            }
          if (found) return;
        }
        return;
    }
  });
  return best;
}

int AllocationState::share_slot_with_room(HostId h, std::uint16_t milli, bool tightest) const {
  int best = -1;
  const auto& used = share_used_[h];
  for (std::size_t s = 0; s < used.size(); ++s) {
    if (used[s] == 0 || used[s] + milli > 1000) continue;
    if (!tightest) return static_cast<int>(s);
    if (best < 0 || used[s] > used[best]) best = static_cast<int>(s);
  }
  return best;
}

void AllocationState::move_bucket(HostId h, std::uint16_t from, std::uint16_t to) {
  auto& b = buckets_[topo_->host(h).model];
  b[from].erase(h);
  b[to].insert(h);
}

void AllocationState::update_short(HostId h) {
  ++version_;  // every change of a host's free GPUs, CPUs or memory ends here
  const auto& info = topo_->host(h);
  if (info.gpus == 0) return;
  const std::uint64_t free = whole_free_[h];
  const bool is_short = std::uint64_t{free_cpu_[h]} * info.gpus < free * info.cpu_milli ||
                        std::uint64_t{free_mem_[h]} * info.gpus < free * info.mem_mib;
  if (is_short)
    short_[info.model].insert(h);
  else
    short_[info.model].erase(h);
}

void AllocationState::take_whole(HostId h, std::uint16_t n) {
  if (take_whole_counts(h, n)) update_short(h);
}

void AllocationState::release_whole(HostId h, std::uint16_t n) {
  if (release_whole_counts(h, n)) update_short(h);
}

void AllocationState::take_resources(HostId h, std::uint32_t cpu_milli, std::uint32_t mem_mib) {
  if (take_resources_counts(h, cpu_milli, mem_mib)) update_short(h);
}

bool AllocationState::take_whole_counts(HostId h, std::uint16_t n) {
  assert(n <= whole_free_[h]);
  if (n == 0) return false;
  const auto& info = topo_->host(h);
  move_bucket(h, whole_free_[h], whole_free_[h] - n);
  whole_free_[h] -= n;
  rack_free_[info.model * racks_ + info.rack] -= n;
  free_by_model_[info.model] -= n;
  free_total_ -= n;
  return true;
}

bool AllocationState::release_whole_counts(HostId h, std::uint16_t n) {
  const auto& info = topo_->host(h);
  assert(whole_free_[h] + n <= info.gpus);
  if (n == 0) return false;
  move_bucket(h, whole_free_[h], whole_free_[h] + n);
  whole_free_[h] += n;
  rack_free_[info.model * racks_ + info.rack] += n;
  free_by_model_[info.model] += n;
  free_total_ += n;
  return true;
}

bool AllocationState::take_resources_counts(HostId h, std::uint32_t cpu_milli, std::uint32_t mem_mib) {
  if (cpu_milli == 0 && mem_mib == 0) return false;
  assert(cpu_milli <= free_cpu_[h] && mem_mib <= free_mem_[h]);
  const std::uint32_t from = free_cpu_[h];
  free_cpu_[h] -= cpu_milli;
  free_mem_[h] -= mem_mib;
  used_cpu_ += cpu_milli;
  used_mem_ += mem_mib;
  move_cpu_bucket(h, from);
  return true;
}

void AllocationState::move_cpu_bucket(HostId h, std::uint32_t from) {
  const std::size_t b_from = cpu_bucket_of(from), b_to = cpu_bucket_of(free_cpu_[h]);
  if (b_from == b_to || host_down(h)) return;
  auto& b = cpu_buckets_[topo_->class_of(h)];
  b[b_from].erase(h);
  b[b_to].insert(h);
}

void AllocationState::release_resources(HostId h, std::uint32_t cpu_milli, std::uint32_t mem_mib) {
  if (release_resources_counts(h, cpu_milli, mem_mib)) update_short(h);
}

bool AllocationState::release_resources_counts(HostId h, std::uint32_t cpu_milli, std::uint32_t mem_mib) {
  if (cpu_milli == 0 && mem_mib == 0) return false;
  const auto& info = topo_->host(h);
  assert(free_cpu_[h] + std::uint64_t{cpu_milli} <= info.cpu_milli);
  assert(free_mem_[h] + std::uint64_t{mem_mib} <= info.mem_mib);
  (void)info;
  const std::uint32_t from = free_cpu_[h];
  free_cpu_[h] += cpu_milli;
  free_mem_[h] += mem_mib;
  used_cpu_ -= cpu_milli;
  used_mem_ -= mem_mib;
  move_cpu_bucket(h, from);
  return true;
}

std::uint16_t AllocationState::take_share(HostId h, std::uint16_t milli, int slot) {
  assert(milli > 0 && milli < 1000);
  auto& used = share_used_[h];
  if (slot < 0) {
    // Open a wholly free GPU for sharing.
    take_whole(h, 1);
    for (std::size_t s = 0; s < used.size(); ++s)
      if (used[s] == 0) {
        slot = static_cast<int>(s);
        break;
      }
    assert(slot >= 0);
    if (shared_gpus_on(h) == 0) shared_hosts_[topo_->host(h).model].insert(h);
    ++shared_total_;
  }
  assert(used[slot] + milli <= 1000);
  used[slot] = static_cast<std::uint16_t>(used[slot] + milli);
  used_milli_ += milli;
  return static_cast<std::uint16_t>(slot);
}

void AllocationState::release_share(HostId h, std::uint16_t slot, std::uint16_t milli) {
  auto& used = share_used_[h];
  assert(used[slot] >= milli);
  used[slot] = static_cast<std::uint16_t>(used[slot] - milli);
  used_milli_ -= milli;
  if (used[slot] == 0) {
    --shared_total_;
    release_whole(h, 1);
    if (shared_gpus_on(h) == 0) shared_hosts_[topo_->host(h).model].erase(h);
  }
}

std::size_t AllocationState::shared_gpus_on(HostId h) const {
  std::size_t n = 0;
  for (auto u : share_used_[h]) n += u > 0;
  return n;
}

// A task's GPUs and resources change the host's short-host filing once, after both (the
// index depends only on the final counts).
void AllocationState::take(const TaskSlot& t) {
  bool changed = false;
  if (t.milli) {
    // Exactly the slot named, so that release(t) frees what take(t) took.
    if (share_used_[t.host][t.share_slot] == 0) {
      changed = take_whole_counts(t.host, 1);
      if (shared_gpus_on(t.host) == 0) shared_hosts_[topo_->host(t.host).model].insert(t.host);
      ++shared_total_;
    }
    assert(share_used_[t.host][t.share_slot] + t.milli <= 1000);
    share_used_[t.host][t.share_slot] = static_cast<std::uint16_t>(share_used_[t.host][t.share_slot] + t.milli);
    used_milli_ += t.milli;
  } else {
    changed = take_whole_counts(t.host, t.gpus);
    used_milli_ += std::uint64_t{t.gpus} * 1000;
  }
  if (take_resources_counts(t.host, t.cpu_milli, t.mem_mib) || changed) update_short(t.host);
}

void AllocationState::release(const TaskSlot& t) {
  if (t.milli) {
    release_share(t.host, t.share_slot, t.milli);
    release_resources(t.host, t.cpu_milli, t.mem_mib);
    return;
  }
  const bool changed = release_whole_counts(t.host, t.gpus);
  used_milli_ -= std::uint64_t{t.gpus} * 1000;
  if (release_resources_counts(t.host, t.cpu_milli, t.mem_mib) || changed) update_short(t.host);
}

void AllocationState::set_down(HostId h, std::uint16_t n) {
  if (down_.empty()) down_.assign(topo_->hosts().size(), 0);
  const bool was_down = host_down(h);
  take_whole(h, n);
  down_[h] = static_cast<std::uint16_t>(down_[h] + n);
  down_total_ += n;
  // The whole host is down: its CPUs are no one's until it is repaired.
  if (!was_down && host_down(h)) cpu_buckets_[topo_->class_of(h)][cpu_bucket_of(free_cpu_[h])].erase(h);
}

void AllocationState::set_up(HostId h, std::uint16_t n) {
  assert(!down_.empty() && down_[h] >= n);
  const bool was_down = host_down(h);
  down_[h] = static_cast<std::uint16_t>(down_[h] - n);
  down_total_ -= n;
  release_whole(h, n);
  if (was_down && !host_down(h)) cpu_buckets_[topo_->class_of(h)][cpu_bucket_of(free_cpu_[h])].insert(h);
  ++release_epoch_;  // repaired GPUs are freed capacity: blocked jobs may fit now
}

void AllocationState::release(const Placement& p) {
  ++release_epoch_;
  for (const auto& t : p.tasks) release(t);
}

AllocationTransaction::AllocationTransaction(AllocationState& state) : state_(&state) {
  if (auto& spare = state.spare_logs_; !spare.empty()) {
    log_ = std::move(spare.back());
    spare.pop_back();
  }
}

AllocationTransaction::~AllocationTransaction() {
  rollback();
  if (auto& spare = state_->spare_logs_; spare.size() < spare.capacity()) spare.push_back(std::move(log_));
}

TaskSlot AllocationTransaction::take(TaskSlot slot) {
  if (slot.milli) return take_share_on(slot, state_->share_slot_with_room(slot.host, slot.milli, true));
  state_->take(slot);
  log_.push_back({slot, true});
  return slot;
}

TaskSlot AllocationTransaction::take_share_on(TaskSlot slot, int share_slot) {
  slot.share_slot = state_->take_share(slot.host, slot.milli, share_slot);
  state_->take_resources(slot.host, slot.cpu_milli, slot.mem_mib);
  log_.push_back({slot, true});
  return slot;
}

void AllocationTransaction::release(const TaskSlot& slot) {
  state_->release(slot);
  log_.push_back({slot, false});
}

void AllocationTransaction::rollback() {
  for (auto it = log_.rbegin(); it != log_.rend(); ++it) {
    if (it->taken)
      state_->release(it->slot);
    else
      state_->take(it->slot);
  }
  log_.clear();
}

}  // namespace schedlab::cluster
