// Binary-heap event queue; see event_queue.h for the ordering contract.
#include "engine/event_queue.h"

#include <algorithm>
#include <cassert>

namespace schedlab::engine {
namespace {
// True when a should leave the queue after b (a std heap is a max-heap on this order).
bool later(const Event& a, const Event& b) {
  if (a.time != b.time) return a.time > b.time;
  if (a.cls != b.cls) return a.cls > b.cls;
  return a.seq > b.seq;
}
}  // namespace

void EventQueue::push(Time time, EventClass cls, std::uint64_t subject, std::uint32_t version) {
  heap_.push_back(Event{time, cls, next_seq_++, subject, version});
  std::push_heap(heap_.begin(), heap_.end(), later);
}

Event EventQueue::pop() {
  assert(!heap_.empty());
  std::pop_heap(heap_.begin(), heap_.end(), later);
  Event e = heap_.back();
  heap_.pop_back();
  return e;
}

}  // namespace schedlab::engine
