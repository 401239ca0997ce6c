// Allocation state updates keep every index consistent; queries read the buckets.
#include "cluster/allocation.h"

#include <cassert>

namespace schedlab::cluster {

AllocationState::AllocationState(const Topology& topo) : topo_(&topo), racks_(topo.racks().size()) {
  const std::size_t models = topo.catalog().size();
  buckets_.resize(models);
  const std::size_t hosts = topo.hosts().size();
  for (ModelId m = 0; m < models; ++m) buckets_[m].assign(topo.max_host_gpus(m) + 1u, HostSet(hosts));
  rack_free_.assign(models * racks_, 0);
  free_by_model_.assign(models, 0);
  shared_hosts_.assign(models, HostSet(hosts));
  whole_free_.resize(topo.hosts().size());
  share_used_.resize(topo.hosts().size());
  for (HostId h = 0; h < topo.hosts().size(); ++h) {
    const auto& info = topo.host(h);
    whole_free_[h] = info.gpus;
    buckets_[info.model][info.gpus].insert(h);
    rack_free_[info.model * racks_ + info.rack] += info.gpus;
    free_by_model_[info.model] += info.gpus;
    free_total_ += info.gpus;
    share_used_[h].assign(info.gpus, 0);
  }
}

std::uint64_t AllocationState::free_gpus(ModelMask mask) const {
  std::uint64_t n = 0;
  for (ModelId m = 0; m < free_by_model_.size(); ++m)
    if (mask >> m & 1) n += free_by_model_[m];
  return n;
}

std::optional<HostId> AllocationState::first_host_with(ModelId m, std::uint16_t k) const {
  std::optional<HostId> best;
  const auto& b = buckets_[m];
  for (std::size_t f = std::max<std::size_t>(k, 1); f < b.size(); ++f)
    if (!b[f].empty() && (!best || *b[f].first() < *best)) best = *b[f].first();
  return best;
}

std::optional<HostId> AllocationState::tightest_host_with(ModelId m, std::uint16_t k) const {
  const auto& b = buckets_[m];
  for (std::size_t f = std::max<std::size_t>(k, 1); f < b.size(); ++f)
    if (!b[f].empty()) return *b[f].first();
  return std::nullopt;
}

std::optional<HostId> AllocationState::roomiest_host_with(ModelId m, std::uint16_t k) const {
  const auto& b = buckets_[m];
  for (std::size_t f = b.size(); f-- > std::max<std::size_t>(k, 1);)
    if (!b[f].empty()) return *b[f].first();
  return std::nullopt;
}

std::uint64_t AllocationState::usable_gpus(ModelId m, std::uint16_t k) const {
  std::uint64_t n = 0;
  const auto& b = buckets_[m];
  for (std::size_t f = std::max<std::size_t>(k, 1); f < b.size(); ++f) n += f * b[f].size();
  return n;
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

void AllocationState::take_whole(HostId h, std::uint16_t n) {
  assert(n <= whole_free_[h]);
  const auto& info = topo_->host(h);
  move_bucket(h, whole_free_[h], whole_free_[h] - n);
  whole_free_[h] -= n;
  rack_free_[info.model * racks_ + info.rack] -= n;
  free_by_model_[info.model] -= n;
  free_total_ -= n;
}

void AllocationState::release_whole(HostId h, std::uint16_t n) {
  const auto& info = topo_->host(h);
  assert(whole_free_[h] + n <= info.gpus);
  move_bucket(h, whole_free_[h], whole_free_[h] + n);
  whole_free_[h] += n;
  rack_free_[info.model * racks_ + info.rack] += n;
  free_by_model_[info.model] += n;
  free_total_ += n;
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

void AllocationState::take(const TaskSlot& t) {
  if (t.milli) {
    // Exactly the slot named, so that release(t) frees what take(t) took.
    if (share_used_[t.host][t.share_slot] == 0) {
      take_whole(t.host, 1);
      if (shared_gpus_on(t.host) == 0) shared_hosts_[topo_->host(t.host).model].insert(t.host);
      ++shared_total_;
    }
    assert(share_used_[t.host][t.share_slot] + t.milli <= 1000);
    share_used_[t.host][t.share_slot] = static_cast<std::uint16_t>(share_used_[t.host][t.share_slot] + t.milli);
    used_milli_ += t.milli;
  } else {
    take_whole(t.host, t.gpus);
    used_milli_ += std::uint64_t{t.gpus} * 1000;
  }
}

void AllocationState::release(const TaskSlot& t) {
  if (t.milli) {
    release_share(t.host, t.share_slot, t.milli);
  } else {
    release_whole(t.host, t.gpus);
    used_milli_ -= std::uint64_t{t.gpus} * 1000;
  }
}

void AllocationState::set_down(HostId h, std::uint16_t n) {
  if (down_.empty()) down_.assign(topo_->hosts().size(), 0);
  take_whole(h, n);
  down_[h] = static_cast<std::uint16_t>(down_[h] + n);
  down_total_ += n;
}

void AllocationState::set_up(HostId h, std::uint16_t n) {
  assert(!down_.empty() && down_[h] >= n);
  down_[h] = static_cast<std::uint16_t>(down_[h] - n);
  down_total_ -= n;
  release_whole(h, n);
  ++release_epoch_;  // repaired GPUs are freed capacity: blocked jobs may fit now
}

void AllocationState::release(const Placement& p) {
  ++release_epoch_;
  for (const auto& t : p.tasks) release(t);
}

TaskSlot AllocationTransaction::take(TaskSlot slot) {
  if (slot.milli) {
    int s = state_->share_slot_with_room(slot.host, slot.milli, true);
    slot.share_slot = state_->take_share(slot.host, slot.milli, s);
  } else {
    state_->take(slot);
  }
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
