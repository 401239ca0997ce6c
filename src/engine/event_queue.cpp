// A 4-ary heap event queue; see event_queue.h for the ordering contract.
#include "engine/event_queue.h"

#include <algorithm>
#include <cassert>
#include <cstddef>

namespace schedlab::engine {
namespace {
constexpr std::size_t kArity = 4;

// True when a should leave the queue after b.
bool later(const Event& a, const Event& b) {
  if (a.time != b.time) return a.time > b.time;
  if (a.cls != b.cls) return a.cls > b.cls;
  return a.seq > b.seq;
}
}  // namespace

void EventQueue::push(Time time, EventClass cls, std::uint64_t subject, std::uint32_t version) {
  const Event e{time, cls, version, next_seq_++, subject};
  std::size_t i = heap_.size();
  heap_.push_back(e);
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (!later(heap_[parent], e)) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

Event EventQueue::pop() {
  assert(!heap_.empty());
  const Event top = heap_.front();
  const Event last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return top;
  // Sift the last event down from the root's hole.
  std::size_t i = 0;
  for (;;) {
    const std::size_t first = i * kArity + 1;
    if (first >= n) break;
    std::size_t least = first;
    const std::size_t end = std::min(first + kArity, n);
    for (std::size_t c = first + 1; c < end; ++c)
      if (later(heap_[least], heap_[c])) least = c;
    if (!later(last, heap_[least])) break;
    heap_[i] = heap_[least];
    i = least;
  }
  heap_[i] = last;
  return top;
}

}  // namespace schedlab::engine
