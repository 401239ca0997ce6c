// A set of host ids as a bitset: insert and erase in O(1) without allocating, the lowest
// member by a scan of 64-host words, and iteration in ascending id order. Sized once, for
// the cluster's host count; backs the allocation indexes that change on every start/end.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <vector>

namespace schedlab::cluster {

class HostSet {
 public:
  HostSet() = default;
  explicit HostSet(std::size_t hosts) : words_((hosts + 63) / 64, 0) {}

  void insert(std::uint32_t h) {
    std::uint64_t& w = words_[h >> 6];
    const std::uint64_t bit = std::uint64_t{1} << (h & 63);
    size_ += (w & bit) == 0;
    w |= bit;
  }
  void erase(std::uint32_t h) {
    std::uint64_t& w = words_[h >> 6];
    const std::uint64_t bit = std::uint64_t{1} << (h & 63);
    size_ -= (w & bit) != 0;
    w &= ~bit;
  }
  bool contains(std::uint32_t h) const { return words_[h >> 6] >> (h & 63) & 1; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // The lowest member at or after `from`, if any.
  std::optional<std::uint32_t> next(std::uint32_t from) const {
    std::size_t i = from >> 6;
    if (i >= words_.size()) return std::nullopt;
    std::uint64_t w = words_[i] & (~std::uint64_t{0} << (from & 63));
    for (;;) {
      if (w) return static_cast<std::uint32_t>(i * 64 + static_cast<std::size_t>(std::countr_zero(w)));
      if (++i == words_.size()) return std::nullopt;
      w = words_[i];
    }
  }
  std::optional<std::uint32_t> first() const { return size_ ? next(0) : std::nullopt; }

  class iterator {
   public:
    iterator(const HostSet* s, std::optional<std::uint32_t> at) : s_(s), at_(at) {}
    std::uint32_t operator*() const { return *at_; }
    iterator& operator++() {
      at_ = s_->next(*at_ + 1);
      return *this;
    }
    bool operator!=(const iterator& o) const { return at_ != o.at_; }
    bool operator==(const iterator& o) const { return at_ == o.at_; }

   private:
    const HostSet* s_;
    std::optional<std::uint32_t> at_;
  };
  iterator begin() const { return {this, first()}; }
  iterator end() const { return {this, std::nullopt}; }

 private:
  std::vector<std::uint64_t> words_;
  std::size_t size_ = 0;
};

}  // namespace schedlab::cluster
