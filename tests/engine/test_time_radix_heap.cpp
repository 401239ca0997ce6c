// The radix heap of times against a sorted multiset: every pop takes the least time held.
#include <doctest/doctest.h>

#include <random>
#include <set>

#include "engine/time_radix_heap.h"

using namespace schedlab::engine;

TEST_CASE("Engine.TimeRadixHeap.pops_the_least_as_a_multiset_would") {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    TimeRadixHeap h;
    std::multiset<Time> ref;
    Time now = trial == 0 ? -1000 : static_cast<Time>(rng() % 1000);  // negative times too
    for (int round = 0; round < 3000; ++round) {
      // Pushes at or after the last time popped (as a run's clock), spread over wide and narrow
      // ranges so that buckets of every height fill; a few duplicates.
      for (int i = static_cast<int>(rng() % 5); i > 0; --i) {
        const Time span = Time{1} << (rng() % 40);
        const Time t = rng() % 8 == 0 && !ref.empty() ? *ref.begin() : now + static_cast<Time>(rng() % span);
        h.push(t);
        ref.insert(t);
      }
      for (int i = static_cast<int>(rng() % 5); i > 0 && !ref.empty(); --i) {
        REQUIRE(h.least() == *ref.begin());
        now = h.least();
        h.pop();
        ref.erase(ref.begin());
      }
      REQUIRE(h.size() == ref.size());
    }
    // A push below every time popped so far is still ordered (rebased).
    h.push(now - 5);
    ref.insert(now - 5);
    while (!ref.empty()) {
      REQUIRE(h.least() == *ref.begin());
      h.pop();
      ref.erase(ref.begin());
    }
    CHECK(h.empty());
  }
}
