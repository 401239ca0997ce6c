// The radix heap of times; see time_radix_heap.h.
#include "engine/time_radix_heap.h"

#include <algorithm>
#include <bit>

namespace schedlab::engine {

std::size_t TimeRadixHeap::bucket_of(Time t) const {
  return static_cast<std::size_t>(std::bit_width(key(t) ^ key(last_)));
}

void TimeRadixHeap::push(Time t) {
  if (!based_ || t < last_) {
    // The first time, or one below the base (never in a run, whose clock only goes forward):
    // rebase on it and file everything again.
    std::vector<Time> all;
    for (auto& b : bucket_) {
      all.insert(all.end(), b.begin(), b.end());
      b.clear();
    }
    last_ = t;
    based_ = true;
    for (Time x : all) bucket_[bucket_of(x)].push_back(x);
  }
  bucket_[bucket_of(t)].push_back(t);
  least_ = size_ == 0 ? t : std::min(least_, t);
  ++size_;
}

const std::vector<Time>& TimeRadixHeap::lowest() const {
  std::size_t i = 0;
  while (bucket_[i].empty()) ++i;
  return bucket_[i];
}

void TimeRadixHeap::pop() {
  if (bucket_[0].empty()) {
    // The least time becomes the base (it leaves now, so later pushes are not below it): the
    // rest of its bucket lands in lower buckets, as they agreed with the old base above that
    // bucket's bit and the new base is one of them.
    std::size_t i = 1;
    while (bucket_[i].empty()) ++i;
    std::vector<Time> from;
    from.swap(bucket_[i]);
    last_ = least_;
    for (Time x : from) bucket_[bucket_of(x)].push_back(x);
    from.clear();
    from.swap(bucket_[i]);  // keep its storage
  }
  bucket_[0].pop_back();
  if (--size_ == 0) return;
  // Not rebased on the next least yet: a push may still come between it and last_.
  const auto& low = lowest();
  least_ = &low == &bucket_[0] ? last_ : *std::min_element(low.begin(), low.end());
}

}  // namespace schedlab::engine
