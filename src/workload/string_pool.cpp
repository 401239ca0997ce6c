// Interning: an open-addressing table (linear probing, at most half full) over labels.
#include "workload/string_pool.h"

#include "util/text.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <utility>

namespace schedlab::workload {

namespace {
constexpr std::size_t kBlockBytes = std::size_t{1} << 16;
constexpr std::size_t kFirstSlots = 64;  // a power of two

std::uint32_t hash_of(std::string_view s) {
  const std::size_t h = std::hash<std::string_view>{}(s);
  return static_cast<std::uint32_t>(h ^ (h >> 32));
}
}  // namespace

StringPool::StringPool() : slots_(kFirstSlots, 0) { intern(""); }

// The moved-from pool is left empty but usable (entry 0 is "" again): its tail pointer would
// otherwise point into the blocks it gave away.
StringPool::StringPool(StringPool&& other) noexcept
    : strings_(std::move(other.strings_)),
      slots_(std::move(other.slots_)),
      blocks_(std::move(other.blocks_)),
      free_(std::exchange(other.free_, nullptr)),
      free_size_(std::exchange(other.free_size_, 0)) {
  other.reset();
}

StringPool& StringPool::operator=(StringPool&& other) noexcept {
  if (this != &other) {
    strings_ = std::move(other.strings_);
    slots_ = std::move(other.slots_);
    blocks_ = std::move(other.blocks_);
    free_ = std::exchange(other.free_, nullptr);
    free_size_ = std::exchange(other.free_size_, 0);
    other.reset();
  }
  return *this;
}

void StringPool::reset() noexcept {
  strings_.clear();
  blocks_.clear();
  free_ = nullptr;
  free_size_ = 0;
  // Entry 0 ("") needs no block and no allocation beyond the table's.
  try {
    slots_.assign(kFirstSlots, 0);
    intern("");
  } catch (...) {
    slots_.clear();
  }
}

std::string_view StringPool::store(std::string_view s) {
  if (s.empty()) return {};
  if (s.size() > free_size_) {
    // A string longer than a block gets a block of its own; the current tail stays in use.
    const std::size_t bytes = std::max(kBlockBytes, s.size());
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(bytes));
    if (bytes > kBlockBytes) return {static_cast<const char*>(std::memcpy(blocks_.back().get(), s.data(), s.size())), s.size()};
    free_ = blocks_.back().get();
    free_size_ = bytes;
  }
  char* at = free_;
  std::memcpy(at, s.data(), s.size());
  free_ += s.size();
  free_size_ -= s.size();
  return {at, s.size()};
}

void StringPool::grow_table() {
  std::vector<std::uint64_t> slots(slots_.size() * 2, 0);
  const std::size_t mask = slots.size() - 1;
  for (const std::uint64_t s : slots_) {
    if (s == 0) continue;
    std::size_t i = (s >> 32) & mask;
    while (slots[i] != 0) i = (i + 1) & mask;
    slots[i] = s;
  }
  slots_.swap(slots);
}

Label StringPool::intern(std::string_view s) {
  const std::uint64_t h = hash_of(s);
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = h & mask;
  for (; slots_[i] != 0; i = (i + 1) & mask) {
    const Label l = static_cast<Label>(slots_[i] & 0xffffffffu) - 1;
    if (slots_[i] >> 32 == h && strings_[l] == s) return l;
  }
  // Text from traces and the API enters here: the pool keeps it printable (util/text.h), so
  // that a control byte or a stray non-UTF-8 byte in a user or job name can reach neither a
  // terminal, nor a CSV row, nor JSON (which must be UTF-8). Only a string not found yet is
  // checked; a stored one never holds such a byte, so one that does is never found above.
  if (!util::is_printable(s)) return intern(util::printable(s));
  // Labels are 32-bit and slot values hold label + 1: a pool never reaches 2^32 - 1 strings
  // (JobIds, one per job, are 32-bit too).
  const auto l = static_cast<Label>(strings_.size());
  strings_.push_back(store(s));
  slots_[i] = h << 32 | (std::uint64_t{l} + 1);
  if (2 * strings_.size() > slots_.size()) grow_table();
  return l;
}

}  // namespace schedlab::workload
