// 4-ary heaps of events and a radix heap of bare instants; see event_queue.h for the ordering contract.
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

// Puts e at hole i or above; moved(j) is told each index whose event changed.
template <class Moved>
void sift_up(std::vector<Event>& heap, std::size_t i, const Event& e, Moved moved) {
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (!later(heap[parent], e)) break;
    heap[i] = heap[parent];
    moved(i);
    i = parent;
  }
  heap[i] = e;
  moved(i);
}

// Puts e at hole i or below.
template <class Moved>
void sift_down(std::vector<Event>& heap, std::size_t i, const Event& e, Moved moved) {
  const std::size_t n = heap.size();
  for (;;) {
    const std::size_t first = i * kArity + 1;
    if (first >= n) break;
    std::size_t least = first;
    const std::size_t end = std::min(first + kArity, n);
    for (std::size_t c = first + 1; c < end; ++c)
      if (later(heap[least], heap[c])) least = c;
    if (!later(e, heap[least])) break;
    heap[i] = heap[least];
    moved(i);
    i = least;
  }
  heap[i] = e;
  moved(i);
}

// Removes the root of a non-empty heap.
template <class Moved>
Event pop_root(std::vector<Event>& heap, Moved moved) {
  const Event top = heap.front();
  const Event last = heap.back();
  heap.pop_back();
  if (!heap.empty()) sift_down(heap, 0, last, moved);
  return top;
}

}  // namespace

void EventQueue::push(Time time, EventClass cls, std::uint64_t subject, std::uint32_t version) {
  const Event e{time, cls, version, next_seq_++, subject};
  heap_.emplace_back();
  sift_up(heap_, heap_.size() - 1, e, [](std::size_t) {});
}

void EventQueue::place(Time time, EventClass cls, std::uint64_t subject, std::uint32_t version) {
  const Event e{time, cls, version, next_seq_++, subject};
  auto track = [this](std::size_t i) { where_[moving_[i].subject] = static_cast<std::uint32_t>(i); };
  if (subject >= where_.size()) where_.resize(std::max<std::size_t>(subject + 1, where_.size() * 2), kNowhere);
  if (where_[subject] == kNowhere) {
    moving_.emplace_back();
    sift_up(moving_, moving_.size() - 1, e, track);
    return;
  }
  const std::size_t i = where_[subject];
  marks_.push(moving_[i].time);
  mark_.time = marks_.least();
  // A later (time, cls, seq) than before: it can only go down; an earlier time: only up.
  if (later(e, moving_[i])) sift_down(moving_, i, e, track);
  else sift_up(moving_, i, e, track);
}

const Event& EventQueue::top() const {
  assert(!empty());
  const Event* best = marks_.empty() ? nullptr : &mark_;
  if (!heap_.empty() && (!best || later(*best, heap_.front()))) best = &heap_.front();
  if (!moving_.empty() && (!best || later(*best, moving_.front()))) best = &moving_.front();
  return *best;
}

Event EventQueue::pop() {
  const Event* best = &top();
  if (best == &mark_) {
    const Event e = mark_;
    marks_.pop();
    if (!marks_.empty()) mark_.time = marks_.least();
    return e;
  }
  if (!heap_.empty() && best == &heap_.front()) return pop_root(heap_, [](std::size_t) {});
  where_[moving_.front().subject] = kNowhere;
  return pop_root(moving_, [this](std::size_t i) { where_[moving_[i].subject] = static_cast<std::uint32_t>(i); });
}

}  // namespace schedlab::engine
