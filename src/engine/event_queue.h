// The pending-event set of a discrete-event run. Events leave in a deterministic order:
// by time, then by event class (so that, at one instant, completions free GPUs before
// arrivals are queued), then by insertion sequence (ties keep the order they were made in).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/time.h"
#include "engine/time_radix_heap.h"

namespace schedlab::engine {

// Lower classes run first within one instant.
// Capacity is freed first (run ends, checkpoint saves that end, repairs), then failures
// strike (hosts, then runs whose task died: reported from outside in an emulation), then
// jobs arrive, then queue keys move.
enum class EventClass : std::uint8_t {
  completion = 0,
  stop_done = 1,
  repair = 2,
  failure = 3,
  run_failure = 4,
  arrival = 5,
  timer = 6,
  wake = 7,  // nothing happens but a scheduling pass (a change from outside, e.g. a job killed)
  retire = 8,   // a service instance's span is over
  requeue = 9   // a failed service instance's backoff is over
};

struct Event {
  Time time = 0;
  EventClass cls = EventClass::timer;
  std::uint32_t version = 0;  // lets the owner ignore events it has superseded (here: 32 bytes an event)
  std::uint64_t seq = 0;      // assigned by the queue
  std::uint64_t subject = 0;  // what the event is about (a job, a run, ...), owner-defined
};

class EventQueue {
 public:
  void push(Time time, EventClass cls, std::uint64_t subject, std::uint32_t version = 0);
  // The subject's movable event (a run's end, which moves whenever its speed changes): pushed,
  // or, while one is queued, moved there with the sequence number a push would get. The instant
  // it leaves still happens, empty: a `wake` stays at the old time, which is what a superseded
  // event left in the queue would make (an instant where nothing happens but a scheduling pass),
  // kept as a bare time. Every event leaves in the order it would if each call were a push.
  // Subjects index a vector here: small dense ids (a run's id).
  void place(Time time, EventClass cls, std::uint64_t subject, std::uint32_t version);
  bool empty() const { return heap_.empty() && moving_.empty() && marks_.empty(); }
  std::size_t size() const { return heap_.size() + moving_.size() + marks_.size(); }
  const Event& top() const;
  Event pop();
  void reserve(std::size_t n) { heap_.reserve(n); }

 private:
  // 4-ary min-heaps on (time, cls, seq): half the levels of a binary heap, and a node's four
  // children share a cache line or two. The order is total (seq is unique), so the events
  // leave in the same order from any heap shape.
  std::vector<Event> heap_;
  // The movable events, with each subject's place in `moving_`: a handful (one per run), so
  // that moving one is a sift in a small heap instead of a stale event left in `heap_`.
  std::vector<Event> moving_;
  static constexpr std::uint32_t kNowhere = ~std::uint32_t{0};
  std::vector<std::uint32_t> where_;  // by subject; kNowhere: none queued
  // The instants that moved events left, and the `wake` at the least.
  TimeRadixHeap marks_;
  Event mark_{0, EventClass::wake, 0, 0, 0};
  std::uint64_t next_seq_ = 0;
};

}  // namespace schedlab::engine
