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

void QueueNeedIndex::sum_up(Block& b) {
  b.min_gpus = b.entries.front().gpus;
  b.min_task_gpus = b.entries.front().task_gpus;
  b.min_run = b.entries.front().run_for;
  for (const auto& e : b.entries) {
    b.min_gpus = std::min(b.min_gpus, e.gpus);
    b.min_task_gpus = std::min(b.min_task_gpus, e.task_gpus);
    b.min_run = std::min(b.min_run, e.run_for);
  }
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
    blocks_.push_back(Block{{e}, e.gpus, e.task_gpus, e.run_for});
    return;
  }
  std::size_t b = std::min(block_of(e.key), blocks_.size() - 1);  // past the last: append to it
  auto& block = blocks_[b];
  block.entries.insert(std::lower_bound(block.entries.begin(), block.entries.end(), e.key, key_less), e);
  block.min_gpus = std::min(block.min_gpus, e.gpus);
  block.min_task_gpus = std::min(block.min_task_gpus, e.task_gpus);
  block.min_run = std::min(block.min_run, e.run_for);
  if (block.entries.size() > kMaxBlock) {
    Block upper;
    upper.entries.assign(block.entries.begin() + kMaxBlock / 2, block.entries.end());
    block.entries.resize(kMaxBlock / 2);
    sum_up(block);
    sum_up(upper);
    blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(b) + 1, std::move(upper));
  }
}

void QueueNeedIndex::erase(const Key& key) {
  last_.valid = false;
  const std::size_t b = block_of(key);
  assert(b < blocks_.size());
  auto& entries = blocks_[b].entries;
  auto it = std::lower_bound(entries.begin(), entries.end(), key, key_less);
  assert(it != entries.end() && it->key == key);
  entries.erase(it);
  --size_;
  if (entries.empty()) {
    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(b));
    return;
  }
  // A short block joins the one before it when both fit in one: the walk stays a few hops.
  if (entries.size() < kMinBlock && b > 0 && blocks_[b - 1].entries.size() + entries.size() <= kMaxBlock) {
    auto& prev = blocks_[b - 1];
    prev.entries.insert(prev.entries.end(), entries.begin(), entries.end());
    sum_up(prev);
    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(b));
    return;
  }
  sum_up(blocks_[b]);
}

std::optional<QueueNeedIndex::Key> QueueNeedIndex::next(const Key& after, std::size_t& budget,
                                                        const BackfillRule& rule) const {
  // The first entry past `after`: in the block that would hold it, or the next one.
  std::size_t b = 0, i = 0;
  if (last_.valid && last_.key == after) {
    b = last_.block;
    i = last_.pos + 1;
  } else {
    b = block_of(after);
    if (b == blocks_.size()) return std::nullopt;
    i = static_cast<std::size_t>(std::upper_bound(blocks_[b].entries.begin(), blocks_[b].entries.end(), after,
                                                  [](const Key& k, const Entry& e) { return k < e.key; }) -
                                 blocks_[b].entries.begin());
  }
  while (budget > 0 && b < blocks_.size()) {
    const auto& block = blocks_[b];
    const std::size_t n = block.entries.size();
    // A whole block of jobs ruled out, within the budget, is passed over by its summary.
    if (i == 0 && n <= budget && !rule.keeps_one() &&
        rule.rules_out(block.min_gpus, block.min_task_gpus, block.min_run)) {
      budget -= n;
      ++b;
      continue;
    }
    for (; i < n && budget > 0; ++i) {
      const auto& e = block.entries[i];
      --budget;
      if (e.key.second == rule.keep || !rule.rules_out(e.gpus, e.task_gpus, e.run_for)) {
        last_ = {true, e.key, b, i};
        return e.key;
      }
    }
    ++b;
    i = 0;
  }
  return std::nullopt;
}

}  // namespace schedlab::sched
