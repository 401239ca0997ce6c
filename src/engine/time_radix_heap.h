// A monotone priority queue of times (a radix heap, Ahuja et al. 1990): the event queue keeps
// here the bare instants that moved events leave behind, hundreds of thousands in a long
// elastic run. Pushes append to one of 65 buckets (by the highest bit in which the time differs
// from the last one popped); a pop redistributes one bucket only when the lowest is empty, so
// every time is moved a few times at most and memory is walked in order, not sifted through.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/time.h"

namespace schedlab::engine {

class TimeRadixHeap {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  Time least() const { return least_; }  // only when not empty
  void push(Time t);
  void pop();  // removes one copy of least()

 private:
  // Times as unsigned keys in the same order.
  static std::uint64_t key(Time t) { return static_cast<std::uint64_t>(t) ^ (std::uint64_t{1} << 63); }
  std::size_t bucket_of(Time t) const;
  const std::vector<Time>& lowest() const;  // the lowest non-empty bucket

  std::array<std::vector<Time>, 65> bucket_;
  Time last_ = 0;   // every time held is >= last_ (bucket 0 holds copies of it)
  bool based_ = false;  // last_ is set
  std::size_t size_ = 0;
  Time least_ = 0;
};

}  // namespace schedlab::engine
