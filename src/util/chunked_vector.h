// A vector of per-job records that grows without moving them: fixed-size blocks, allocated
// as they are first needed. Growing a std::vector by doubling touches twice the final memory
// and copies every record on each doubling; with a million jobs that copying and the page
// faults it causes were a large share of a replay. Elements keep their addresses. Elements
// are constructed as the vector grows into them, not when their block is allocated: a short
// trace touches only the pages its records use (value-initialising a whole block cost a
// sweep cell of 1,000 jobs a quarter of its page faults).
#pragma once

#include <cstddef>
#include <iterator>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace schedlab::util {

template <typename T, std::size_t BlockSize = 4096>
class ChunkedVector {
 public:
  ChunkedVector() = default;
  ChunkedVector(const ChunkedVector&) = delete;
  ChunkedVector& operator=(const ChunkedVector&) = delete;
  ChunkedVector(ChunkedVector&& other) noexcept
      : blocks_(std::move(other.blocks_)), size_(std::exchange(other.size_, 0)) {}
  ChunkedVector& operator=(ChunkedVector&& other) noexcept {
    if (this != &other) {
      destroy();
      blocks_ = std::move(other.blocks_);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  ~ChunkedVector() { destroy(); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  T& operator[](std::size_t i) { return slot(i); }
  const T& operator[](std::size_t i) const { return const_cast<ChunkedVector*>(this)->slot(i); }
  T& back() { return (*this)[size_ - 1]; }

  // Grows to `n` elements (new ones value-initialised); never shrinks.
  void resize(std::size_t n) {
    while (blocks_.size() * BlockSize < n) blocks_.emplace_back(new Storage[BlockSize]);
    for (; size_ < n; ++size_) ::new (static_cast<void*>(&slot(size_))) T();
  }
  T& emplace_back() {
    resize(size_ + 1);
    return back();
  }

  template <bool Const>
  class Iter {
    using Owner = std::conditional_t<Const, const ChunkedVector, ChunkedVector>;

   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using reference = std::conditional_t<Const, const T&, T&>;
    using pointer = std::conditional_t<Const, const T*, T*>;
    Iter() = default;
    Iter(Owner* v, std::size_t i) : v_(v), i_(i) {}
    reference operator*() const { return (*v_)[i_]; }
    pointer operator->() const { return &(*v_)[i_]; }
    Iter& operator++() {
      ++i_;
      return *this;
    }
    Iter operator++(int) {
      Iter old = *this;
      ++i_;
      return old;
    }
    bool operator==(const Iter& o) const { return i_ == o.i_; }

   private:
    Owner* v_ = nullptr;
    std::size_t i_ = 0;
  };
  using iterator = Iter<false>;
  using const_iterator = Iter<true>;
  iterator begin() { return {this, 0}; }
  iterator end() { return {this, size_}; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  // Raw storage for one element: new Storage[n] allocates without constructing a T.
  struct Storage {
    alignas(T) unsigned char bytes[sizeof(T)];
  };
  T& slot(std::size_t i) { return *std::launder(reinterpret_cast<T*>(blocks_[i / BlockSize][i % BlockSize].bytes)); }
  void destroy() {
    if constexpr (!std::is_trivially_destructible_v<T>)
      for (std::size_t i = 0; i < size_; ++i) slot(i).~T();
    size_ = 0;
  }

  std::vector<std::unique_ptr<Storage[]>> blocks_;
  std::size_t size_ = 0;
};

}  // namespace schedlab::util
