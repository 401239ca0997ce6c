// Event queue order: by time, then event class, then insertion sequence.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "engine/event_queue.h"

using namespace schedlab::engine;

namespace {
std::vector<std::uint64_t> drain(EventQueue& q) {
  std::vector<std::uint64_t> subjects;
  while (!q.empty()) subjects.push_back(q.pop().subject);
  return subjects;
}
}  // namespace

TEST_CASE("Engine.EventQueue.earlier_time_leaves_first") {
  EventQueue q;
  q.push(30, EventClass::arrival, 3);
  q.push(10, EventClass::timer, 1);
  q.push(20, EventClass::completion, 2);
  CHECK(q.size() == 3);
  CHECK(q.top().subject == 1);
  CHECK(drain(q) == std::vector<std::uint64_t>{1, 2, 3});
}

TEST_CASE("Engine.EventQueue.at_one_instant_completions_before_failures_before_arrivals_before_timers") {
  EventQueue q;
  q.push(5, EventClass::timer, 4);
  q.push(5, EventClass::arrival, 3);
  q.push(5, EventClass::failure, 2);
  q.push(5, EventClass::completion, 1);
  CHECK(drain(q) == std::vector<std::uint64_t>{1, 2, 3, 4});
}

TEST_CASE("Engine.EventQueue.same_time_and_class_keep_insertion_order") {
  EventQueue q;
  for (std::uint64_t i = 0; i < 100; ++i) q.push(7, EventClass::arrival, i);
  std::vector<std::uint64_t> expected;
  for (std::uint64_t i = 0; i < 100; ++i) expected.push_back(i);
  CHECK(drain(q) == expected);
}

TEST_CASE("Engine.EventQueue.sequence_numbers_count_pushes_and_version_is_kept") {
  EventQueue q;
  q.push(1, EventClass::completion, 9, 4);
  q.push(0, EventClass::completion, 8);
  Event a = q.pop();
  Event b = q.pop();
  CHECK(a.subject == 8);
  CHECK(a.seq == 1);
  CHECK(b.subject == 9);
  CHECK(b.seq == 0);
  CHECK(b.version == 4);
  CHECK(b.cls == EventClass::completion);
  CHECK(q.empty());
}

TEST_CASE("Engine.EventQueue.interleaved_pushes_and_pops_follow_the_order") {
  // A table of (time, class) pushed in a scrambled order; pops must come out sorted by
  // (time, class, insertion), including events pushed after some were popped.
  struct Push {
    Time time;
    EventClass cls;
  };
  const std::vector<Push> first = {{3, EventClass::timer}, {1, EventClass::arrival}, {3, EventClass::completion},
                                   {1, EventClass::arrival}, {2, EventClass::failure}};
  EventQueue q;
  std::uint64_t subject = 0;
  for (const auto& p : first) q.push(p.time, p.cls, subject++);
  Event e = q.pop();
  CHECK(e.time == 1);
  CHECK(e.subject == 1);
  q.push(1, EventClass::completion, subject++);  // 5: same instant, earlier class
  q.push(1, EventClass::arrival, subject++);     // 6: same instant and class, later sequence
  CHECK(drain(q) == std::vector<std::uint64_t>{5, 3, 6, 4, 2, 0});
}

TEST_CASE("Engine.EventQueue.many_interleaved_pushes_and_pops_match_a_sorted_reference") {
  // Deep heaps (thousands of events, few distinct times and classes, so ties abound) with pops
  // between pushes: every pop is the least (time, class, sequence) still queued.
  std::mt19937_64 rng(7);
  EventQueue q;
  std::vector<std::tuple<Time, int, std::uint64_t>> ref;  // (time, class, subject = push number)
  std::uint64_t pushed = 0;
  Time floor = 0;  // pushes never go back in time, as in a run
  for (int round = 0; round < 4000; ++round) {
    const int pushes = static_cast<int>(rng() % 4);
    for (int i = 0; i < pushes; ++i) {
      const Time t = floor + static_cast<Time>(rng() % 50);
      const auto cls = static_cast<EventClass>(rng() % 10);
      q.push(t, cls, pushed);
      ref.emplace_back(t, static_cast<int>(cls), pushed);
      ++pushed;
    }
    const int pops = static_cast<int>(rng() % 4);
    for (int i = 0; i < pops && !ref.empty(); ++i) {
      const auto least = std::min_element(ref.begin(), ref.end());
      const Event e = q.pop();
      REQUIRE(e.subject == std::get<2>(*least));
      CHECK(e.time == std::get<0>(*least));
      floor = e.time;
      ref.erase(least);
    }
  }
  while (!ref.empty()) {
    const auto least = std::min_element(ref.begin(), ref.end());
    REQUIRE(q.pop().subject == std::get<2>(*least));
    ref.erase(least);
  }
  CHECK(q.empty());
}

TEST_CASE("Engine.EventQueue.placed_events_leave_as_pushes_with_superseded_ones_left_behind") {
  // The reference pushes every placement and turns the subject's queued one into a superseded
  // event (it still leaves at its time, with nothing in it). The queue must give the same times,
  // one pop for one, and the live events in the same order; superseded ones come out as wakes
  // (at their time; among events of the same time, anywhere: they do nothing). A run places
  // events only between instants, so the test drains an instant whole before placing again.
  std::mt19937_64 rng(11);
  EventQueue q;
  struct Ref {
    Time time;
    int cls;
    std::uint64_t seq, subject;
    bool superseded;
  };
  std::vector<Ref> ref;
  std::vector<std::uint64_t> live_ref, live_got;
  std::size_t wakes_ref = 0, wakes_got = 0;
  std::uint64_t seq = 0;
  Time floor = 0;
  auto least = [&] {
    return std::min_element(ref.begin(), ref.end(), [](const Ref& a, const Ref& b) {
      return std::tie(a.time, a.cls, a.seq) < std::tie(b.time, b.cls, b.seq);
    });
  };
  auto pop_both = [&] {
    const auto l = least();
    const Event e = q.pop();
    REQUIRE(e.time == l->time);
    if (l->superseded) ++wakes_ref;
    else live_ref.push_back(l->subject);
    if (e.cls == EventClass::wake) ++wakes_got;
    else live_got.push_back(e.subject);
    floor = e.time;
    ref.erase(l);
  };
  for (int round = 0; round < 3000; ++round) {
    for (int i = static_cast<int>(rng() % 4); i > 0; --i) {
      const Time t = floor + static_cast<Time>(rng() % 40);
      if (rng() % 3 == 0) {
        q.push(t, EventClass::arrival, 1000 + seq);
        ref.push_back({t, static_cast<int>(EventClass::arrival), seq, 1000 + seq, false});
        ++seq;
      } else {
        const std::uint64_t subject = rng() % 12;  // few subjects: most placements move one
        for (auto& r : ref)
          if (r.subject == subject && !r.superseded) r.superseded = true;
        q.place(t, EventClass::completion, subject, 0);
        ref.push_back({t, static_cast<int>(EventClass::completion), seq, subject, false});
        ++seq;
      }
    }
    // Whole instants, as a run drains them before it places again.
    for (int i = static_cast<int>(rng() % 3); i > 0 && !ref.empty(); --i)
      for (const Time t = least()->time; !ref.empty() && least()->time == t;) pop_both();
  }
  while (!ref.empty()) pop_both();
  CHECK(q.empty());
  CHECK(live_got == live_ref);
  CHECK(wakes_got == wakes_ref);
  CHECK(wakes_got > 1000);
}
