// IdMap: a hash map from 64-bit ids to values, in two flat arrays (open addressing, linear
// probing, deletion by backward shift). The simulation keeps the runs holding GPUs by run id
// and each run's progress in one: a million-job replay inserts and erases two million of
// each, and a node-based std::unordered_map paid an allocation and a free for every one.
// Iteration order is the slots' order, which depends on the ids and the history: callers
// that need an order (a failure's victims in start order) sort what they collect.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace schedlab::util {

template <typename T>
class IdMap {
 public:
  static constexpr std::uint64_t kNoId = ~std::uint64_t{0};  // the one id that cannot be stored

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool contains(std::uint64_t id) const { return slot_of(id) != kAbsent; }

  T* find(std::uint64_t id) {
    const std::size_t s = slot_of(id);
    return s == kAbsent ? nullptr : &values_[s];
  }
  const T* find(std::uint64_t id) const {
    const std::size_t s = slot_of(id);
    return s == kAbsent ? nullptr : &values_[s];
  }
  const T& at(std::uint64_t id) const {
    const T* v = find(id);
    if (!v) throw std::out_of_range("IdMap::at: no such id");
    return *v;
  }

  // Stores `value` under `id`, which must not be stored yet (nor be kNoId).
  T& insert(std::uint64_t id, T value) {
    if ((size_ + 1) * 2 > keys_.size()) grow();
    std::size_t s = home(id);
    while (keys_[s] != kNoId) s = (s + 1) & mask_;
    keys_[s] = id;
    values_[s] = std::move(value);
    ++size_;
    return values_[s];
  }

  // Removes `id` (which must be stored) and hands its value back.
  T take(std::uint64_t id) {
    const std::size_t s = slot_of(id);
    if (s == kAbsent) throw std::out_of_range("IdMap::take: no such id");
    T value = std::move(values_[s]);
    remove_slot(s);
    return value;
  }

  // Removes `id` if stored; says whether it was.
  bool erase(std::uint64_t id) {
    const std::size_t s = slot_of(id);
    if (s == kAbsent) return false;
    remove_slot(s);
    return true;
  }

  // f(id, value) for every stored id, in slot order (see the header comment).
  template <typename F>
  void for_each(F&& f) const {
    for (std::size_t s = 0; s < keys_.size(); ++s)
      if (keys_[s] != kNoId) f(keys_[s], values_[s]);
  }

 private:
  static constexpr std::size_t kAbsent = ~std::size_t{0};

  std::size_t home(std::uint64_t id) const {
    // Fibonacci hashing: consecutive ids land apart, and the top bits index the table.
    return static_cast<std::size_t>((id * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  std::size_t slot_of(std::uint64_t id) const {
    if (size_ == 0) return kAbsent;
    for (std::size_t s = home(id);; s = (s + 1) & mask_) {
      if (keys_[s] == id) return s;
      if (keys_[s] == kNoId) return kAbsent;
    }
  }

  // Empties slot s, moving later entries of its probe run back so that every stored id stays
  // reachable from its home slot without tombstones.
  void remove_slot(std::size_t hole) {
    for (std::size_t j = (hole + 1) & mask_; keys_[j] != kNoId; j = (j + 1) & mask_) {
      const std::size_t h = home(keys_[j]);
      // The entry at j may fill the hole unless its home lies cyclically in (hole, j].
      const bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
      if (stays) continue;
      keys_[hole] = keys_[j];
      values_[hole] = std::move(values_[j]);
      hole = j;
    }
    keys_[hole] = kNoId;
    values_[hole] = T{};  // gives back what the value held (a placement's tasks)
    --size_;
  }

  void grow() {
    const std::size_t capacity = keys_.empty() ? 16 : keys_.size() * 2;
    std::vector<std::uint64_t> keys(capacity, kNoId);
    std::vector<T> values(capacity);
    keys.swap(keys_);
    values.swap(values_);
    mask_ = capacity - 1;
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
    size_ = 0;
    for (std::size_t s = 0; s < keys.size(); ++s)
      if (keys[s] != kNoId) insert(keys[s], std::move(values[s]));
  }

  std::vector<std::uint64_t> keys_;
  std::vector<T> values_;
  std::size_t size_ = 0;
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
};

}  // namespace schedlab::util
