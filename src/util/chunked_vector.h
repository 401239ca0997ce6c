// A vector of per-job records that grows without moving them: fixed-size blocks, allocated
// as they are first needed. Growing a std::vector by doubling touches twice the final memory
// and copies every record on each doubling; with a million jobs that copying and the page
// faults it causes were a large share of a replay. Elements keep their addresses.
#pragma once

#include <cstddef>
#include <iterator>
#include <memory>
#include <vector>

namespace schedlab {

template <typename T, std::size_t BlockSize = 4096>
class ChunkedVector {
 public:
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  T& operator[](std::size_t i) { return blocks_[i / BlockSize][i % BlockSize]; }
  const T& operator[](std::size_t i) const { return blocks_[i / BlockSize][i % BlockSize]; }
  T& back() { return (*this)[size_ - 1]; }

  // Grows to `n` elements (new ones value-initialised); never shrinks.
  void resize(std::size_t n) {
    while (blocks_.size() * BlockSize < n) blocks_.push_back(std::make_unique<T[]>(BlockSize));
    if (n > size_) size_ = n;
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
  std::vector<std::unique_ptr<T[]>> blocks_;
  std::size_t size_ = 0;
};

}  // namespace schedlab
