// Short sorted blocks of the waiting jobs' needs (queue_need_index.h).
#include "sched/queue_need_index.h"

#include <algorithm>
#include <cassert>

namespace schedlab::sched {

namespace {
// Blocks split past kMaxBlock entries and merge into a neighbour below kMinBlock: long enough
// that a skip saves a walk, short enough that an insert or erase moves little.
constexpr std::size_t kMaxBlock = 128;
constexpr std::size_t kMinBlock = 16;

bool key_less(const QueueNeedIndex::Entry& e, const QueueNeedIndex::Key& k) { return e.key < k; }
}  // namespace

void QueueNeedIndex::add_to(Block& b, const Entry& e) {
  b.min_gpus = std::min(b.min_gpus, e.gpus);
  b.min_task_gpus = std::min(b.min_task_gpus, e.task_gpus);
  b.min_run = std::min(b.min_run, e.run_for);
  b.lanes |= PoolLanes::bit(e.lane);
  b.max_blocking = std::max(b.max_blocking, e.blocking);
  if (e.blocking > 0) b.blocking_allowed &= e.allowed;
}

void QueueNeedIndex::sum_up(Block& b) {
  const auto& f = b.entries.front();
  b.min_gpus = f.gpus;
  b.min_task_gpus = f.task_gpus;
  b.min_run = f.run_for;
  b.lanes = 0;
  b.max_blocking = 0;
  b.blocking_allowed = ~cluster::ModelMask{0};
  for (const auto& e : b.entries) add_to(b, e);
}

std::size_t QueueNeedIndex::block_of(const Key& key) const {
  auto it = std::lower_bound(blocks_.begin(), blocks_.end(), key,
                             [](const Block& b, const Key& k) { return b.entries.back().key < k; });
  return static_cast<std::size_t>(it - blocks_.begin());
}

void QueueNeedIndex::insert(const Entry& e) {
  last_.valid = false;
  ++size_;
  if (blocks_.empty()) {
    Block block;
    block.entries.push_back(e);
    sum_up(block);
    blocks_.push_back(std::move(block));
    return;
  }
  std::size_t b = std::min(block_of(e.key), blocks_.size() - 1);  // past the last: append to it
  auto& block = blocks_[b];
  block.entries.insert(std::lower_bound(block.entries.begin(), block.entries.end(), e.key, key_less), e);
  add_to(block, e);
  if (block.entries.size() > kMaxBlock) {
    Block upper;
    upper.entries.assign(block.entries.begin() + kMaxBlock / 2, block.entries.end());
    block.entries.resize(kMaxBlock / 2);
    sum_up(block);
    sum_up(upper);
    blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(b) + 1, std::move(upper));
  }
}

QueueNeedIndex::Entry QueueNeedIndex::erase(const Key& key) {
  last_.valid = false;
  const std::size_t b = block_of(key);
  assert(b < blocks_.size());
  auto& entries = blocks_[b].entries;
  auto it = std::lower_bound(entries.begin(), entries.end(), key, key_less);
  assert(it != entries.end() && it->key == key);
  const Entry gone = *it;
  entries.erase(it);
  --size_;
  if (entries.empty()) {
    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(b));
    return gone;
  }
  // A short block joins the one before it when both fit in one: the walk stays a few hops.
  if (entries.size() < kMinBlock && b > 0 && blocks_[b - 1].entries.size() + entries.size() <= kMaxBlock) {
    auto& prev = blocks_[b - 1];
    prev.entries.insert(prev.entries.end(), entries.begin(), entries.end());
    sum_up(prev);
    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(b));
    return gone;
  }
  sum_up(blocks_[b]);
  return gone;
}

std::pair<std::size_t, std::size_t> QueueNeedIndex::first_past(const Key& after) const {
  if (last_.valid && last_.key == after) return {last_.block, last_.pos + 1};
  const std::size_t b = block_of(after);
  if (b == blocks_.size()) return {b, 0};
  const auto& entries = blocks_[b].entries;
  return {b, static_cast<std::size_t>(std::upper_bound(entries.begin(), entries.end(), after,
                                                       [](const Key& k, const Entry& e) { return k < e.key; }) -
                                      entries.begin())};
}

std::optional<QueueNeedIndex::Key> QueueNeedIndex::next(const Key& after, std::size_t& budget,
                                                        const BackfillRule& rule) const {
  // The first entry past `after`: in the block that would hold it, or the next one.
  auto [b, i] = first_past(after);
  while (budget > 0 && b < blocks_.size()) {
    const auto& block = blocks_[b];
    const std::size_t n = block.entries.size();
    // A whole block of jobs ruled out, within the budget, is passed over by its summary.
    if (i == 0 && n <= budget && !rule.keeps_one() &&
        (rule.rules_out(block.min_gpus, block.min_task_gpus, block.min_run) ||
         (rule.lanes && (block.lanes & ~rule.lanes->closed) == 0))) {
      budget -= n;
      ++b;
      continue;
    }
    for (; i < n && budget > 0; ++i) {
      const auto& e = block.entries[i];
      --budget;
      if (e.key.second == rule.keep || !(rule.rules_out(e.gpus, e.task_gpus, e.run_for) ||
                                         (rule.lanes && rule.lanes->refuses(e.lane, e.lane_gpus)))) {
        last_ = {true, e.key, b, i};
        return e.key;
      }
    }
    ++b;
    i = 0;
  }
  return std::nullopt;
}

std::optional<QueueNeedIndex::Key> QueueNeedIndex::next_to_try(const Key* after, const LaneRefusals& lanes,
                                                               workload::JobId keep,
                                                               const cluster::AllocationState& alloc) const {
  auto [b, i] = after ? first_past(*after) : std::pair<std::size_t, std::size_t>{0, 0};
  // The free GPUs of the last model set asked about: most jobs may use the same models.
  cluster::ModelMask mask = 0;
  std::uint64_t free = alloc.free_gpus(mask);
  auto free_of = [&](cluster::ModelMask m) {
    if (m != mask) {
      mask = m;
      free = alloc.free_gpus(m);
    }
    return free;
  };
  // Passed over: its pool refuses it, and the admissions before pools admit it (a refusal
  // there would block the queue, and the pass must see it).
  auto admitted_before = [&](std::uint64_t blocking, cluster::ModelMask allowed) {
    return blocking == 0 || (blocking != kAsk && blocking <= free_of(allowed));
  };
  for (; b < blocks_.size(); ++b, i = 0) {
    const auto& block = blocks_[b];
    // The models every blocking entry may use are among each one's: no more of them are free.
    if (i == 0 && keep == BackfillRule::kNoKeep && (block.lanes & ~lanes.closed) == 0 &&
        admitted_before(block.max_blocking, block.blocking_allowed))
      continue;
    for (; i < block.entries.size(); ++i) {
      const auto& e = block.entries[i];
      if (e.key.second == keep || !lanes.refuses(e.lane, e.lane_gpus) || !admitted_before(e.blocking, e.allowed)) {
        last_ = {true, e.key, b, i};
        return e.key;
      }
    }
  }
  return std::nullopt;
}

}  // namespace schedlab::sched
