// Event queue throughput: push/pop in the simulator's pattern (one completion pushed for
// each popped event, at a random later time), over queues of 1k to 1M pending events.
#include <benchmark/benchmark.h>

#include "engine/event_queue.h"
#include "engine/rng.h"

namespace {
using schedlab::engine::EventClass;
using schedlab::engine::EventQueue;

void BM_EventQueue_SteadyState(benchmark::State& state) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  schedlab::engine::Rng rng(42);
  EventQueue q;
  q.reserve(pending + 1);
  for (std::size_t i = 0; i < pending; ++i)
    q.push(rng.uniform_int(0, 1'000'000'000), EventClass::completion, i);
  for (auto _ : state) {
    auto e = q.pop();
    q.push(e.time + rng.uniform_int(1, 10'000'000), static_cast<EventClass>(e.subject & 3), e.subject);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueue_SteadyState)->Arg(1'000)->Arg(100'000)->Arg(1'000'000);

void BM_EventQueue_SameInstantTies(benchmark::State& state) {
  // Many events at one instant: the (class, sequence) tie-break path.
  EventQueue q;
  for (auto _ : state) {
    for (std::uint64_t i = 0; i < 1024; ++i) q.push(7, static_cast<EventClass>(i & 3), i);
    while (!q.empty()) benchmark::DoNotOptimize(q.pop());
  }
  state.SetItemsProcessed(state.iterations() * 1024);
}
BENCHMARK(BM_EventQueue_SameInstantTies);
}  // namespace
