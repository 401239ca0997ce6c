// Each placement part on its own: where it puts a job's tasks on a partly used cluster.
#include <doctest/doctest.h>

#include "sched_fixtures.h"

using namespace schedlab;
using namespace schedlab::cluster;
using namespace schedlab::testing;

namespace {
constexpr ModelMask kAll = ~ModelMask{0};

// One rack of four 4-GPU hosts with h0 holding 2, h1 holding 3, h2 empty, h3 holding 1:
// free GPUs per host are 2, 1, 4, 3.
struct FourHosts {
  GpuCatalog catalog = small_catalog();
  Topology topo{uniform_cluster(1, 4, 4), catalog};
  AllocationState alloc{topo};
  FourHosts() {
    alloc.take(TaskSlot{0, 2, 0, 0});
    alloc.take(TaskSlot{1, 3, 0, 0});
    alloc.take(TaskSlot{3, 1, 0, 0});
  }
};
}  // namespace

TEST_CASE("Sched.FirstFit.fills_the_lowest_numbered_hosts_in_order") {
  struct Case {
    std::uint32_t tasks, gpus;
    const char* expected;
  };
  const Case cases[] = {
      {1, 1, "h0:1"},
      {1, 2, "h0:2"},
      {1, 3, "h2:3"},                          // h0 and h1 are too full
      {3, 1, "h0:1 h0:1 h1:1"},                // as many per host as fit
      {4, 2, "h0:2 h2:2 h2:2 h3:2"},
      {3, 4, "h2:4"},                          // only one host has 4: stops early
  };
  for (const auto& c : cases) {
    CAPTURE(c.tasks);
    CAPTURE(c.gpus);
    FourHosts f;
    auto s = spec_of(c.tasks, c.gpus);
    CHECK(slots_text(place_with("first-fit", s, f.alloc, kAll)) == c.expected);
  }
}

TEST_CASE("Sched.BestFit.packs_the_fullest_host") {
  struct Case {
    std::uint32_t tasks, gpus;
    const char* expected;
  };
  const Case cases[] = {
      {1, 1, "h1:1"},                  // h1 has exactly one free
      {1, 2, "h0:2"},                  // fewest free with room for 2
      {1, 3, "h3:3"},                  // h3 (3 free) before h2 (4 free)
      {3, 1, "h1:1 h0:1 h0:1"},        // each task re-asks: h1 full, then h0 (2 free) twice
      {2, 2, "h0:2 h3:2"},             // after h0, h3 (3 free) is tighter than h2 (4 free)
  };
  for (const auto& c : cases) {
    CAPTURE(c.tasks);
    CAPTURE(c.gpus);
    FourHosts f;
    auto s = spec_of(c.tasks, c.gpus);
    CHECK(slots_text(place_with("best-fit", s, f.alloc, kAll)) == c.expected);
  }
}

TEST_CASE("Sched.Spread.puts_each_task_on_the_emptiest_unused_host") {
  struct Case {
    std::uint32_t tasks, gpus;
    const char* expected;
  };
  const Case cases[] = {
      {1, 1, "h2:1"},
      {4, 1, "h2:1 h3:1 h0:1 h1:1"},  // emptiest first, one task per host
      {5, 1, "h2:1 h3:1 h0:1 h1:1 h2:1"},  // every host used: the emptiest takes a second
      {2, 2, "h2:2 h3:2"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.tasks);
    FourHosts f;
    auto s = spec_of(c.tasks, c.gpus);
    CHECK(slots_text(place_with("spread", s, f.alloc, kAll)) == c.expected);
  }
}

TEST_CASE("Sched.RackPack.one_host_then_one_rack_then_fewest_racks") {
  // Two racks of two 4-GPU hosts: rack 0 = h0 (1 free), h1 (4 free); rack 1 = h2 (2 free),
  // h3 (2 free).
  auto catalog = small_catalog();
  Topology topo(uniform_cluster(2, 2, 4), catalog);
  auto fresh = [&] {
    AllocationState a(topo);
    a.take(TaskSlot{0, 3, 0, 0});
    a.take(TaskSlot{2, 2, 0, 0});
    a.take(TaskSlot{3, 2, 0, 0});
    return a;
  };
  struct Case {
    std::uint32_t tasks, gpus;
    const char* expected;
    const char* why;
  };
  const Case cases[] = {
      {2, 1, "h2:1 h2:1", "fits on one host: the tightest with 2 (h2)"},
      {3, 1, "h1:1 h1:1 h1:1", "one host: only h1 has 3"},
      {2, 2, "h1:2 h1:2", "4 GPUs on one host: h1"},
      {5, 1, "h1:1 h1:1 h1:1 h1:1 h0:1", "one rack: rack 0 (5 free) is tighter than rack 1"},
      {3, 2, "h1:2 h1:2 h2:2", "no rack holds 3 tasks of 2: roomiest rack first"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.why);
    auto a = fresh();
    auto s = spec_of(c.tasks, c.gpus);
    CHECK(slots_text(place_with("rack-pack", s, a, kAll)) == c.expected);
  }
}

TEST_CASE("Sched.Placement.respects_the_allowed_models") {
  auto catalog = small_catalog();
  Topology topo(hetero_cluster(), catalog);
  const ModelMask a100 = ModelMask{1} << kA100;
  for (const char* p : {"first-fit", "best-fit", "rack-pack", "spread"}) {
    CAPTURE(p);
    AllocationState a(topo);
    auto s = spec_of(2, 4);
    auto slots = place_with(p, s, a, a100);
    REQUIRE(slots.size() == 2);
    for (const auto& t : slots) CHECK(topo.host(t.host).model == kA100);
    AllocationState b(topo);
    CHECK(place_with(p, s, b, 0).empty());  // no allowed model: nothing placed
  }
}

TEST_CASE("Sched.Placement.shares_first_fit_vs_tightest") {
  // One host of two GPUs, GPU 0 shared at 600, GPU 1 shared at 300.
  auto catalog = small_catalog();
  Topology topo(uniform_cluster(1, 2, 2), catalog);
  auto fresh = [&] {
    AllocationState a(topo);
    a.take_share(0, 600, -1);
    a.take_share(0, 300, -1);
    return a;
  };
  struct Case {
    const char* placement;
    std::uint16_t milli;
    const char* expected;
  };
  const Case cases[] = {
      {"first-fit", 200, "h0:200m@0"},  // the lowest shared GPU with room
      {"first-fit", 500, "h0:500m@1"},  // GPU 0 (600) has no room for 500
      {"first-fit", 800, "h1:800m@0"},  // no shared GPU has room: a free GPU on h1
      {"best-fit", 200, "h0:200m@0"},   // the fullest shared GPU with room
      {"best-fit", 400, "h0:400m@0"},   // 600 + 400 = 1000 exactly
      {"best-fit", 500, "h0:500m@1"},
      {"rack-pack", 400, "h0:400m@0"},
      {"spread", 500, "h1:500m@0"},     // spread opens a GPU on the emptiest host
  };
  for (const auto& c : cases) {
    CAPTURE(c.placement);
    CAPTURE(c.milli);
    auto a = fresh();
    auto s = spec_of(1, 1, c.milli);
    CHECK(slots_text(place_with(c.placement, s, a, ~ModelMask{0})) == c.expected);
  }
}
