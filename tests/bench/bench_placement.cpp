// Placement cost on the 10,240-GPU cluster (40 racks x 32 hosts x 8 GPUs), about half
// full with a random pattern: one gang placement attempt (commit discarded) per iteration,
// per placement part and job shape. No placement may scan every host per attempt.
#include <benchmark/benchmark.h>

#include "cluster/allocation.h"
#include "engine/rng.h"
#include "sched/registry.h"

namespace {
using namespace schedlab;

struct Fixture {
  cluster::GpuCatalog catalog{{cluster::GpuModel{"H100", 90, 80, 4.5, "nvlink4", 900, 128}}};
  cluster::Topology topo{[] {
    cluster::ClusterSpec spec;
    spec.name = "dc";
    cluster::RackSpec rack;
    rack.name = "r";
    rack.count = 40;
    rack.hosts.push_back({32, 8, 0, 400});
    spec.racks.push_back(rack);
    return spec;
  }(), catalog};
  cluster::AllocationState alloc{topo};
  Fixture() {
    engine::Rng rng(1);
    for (cluster::HostId h = 0; h < topo.hosts().size(); ++h) {
      auto take = static_cast<std::uint16_t>(rng.uniform_int(0, 8));
      if (take) alloc.take(cluster::TaskSlot{h, take, 0, 0});
    }
  }
};

void BM_Placement(benchmark::State& state, const std::string& name, std::uint32_t tasks, std::uint32_t gpus) {
  static Fixture f;
  auto policy = sched::builtin_parts().placements.make(name, {});
  workload::JobSpec spec;
  spec.tasks = tasks;
  spec.gpus_per_task = gpus;
  sched::PendingJob job{&spec, f.catalog.all(), tasks, 0};
  std::vector<cluster::TaskSlot> slots;
  for (auto _ : state) {
    slots.clear();
    cluster::AllocationTransaction tx(f.alloc);
    policy->place(job, tasks, f.catalog.all(), tx, slots);
    benchmark::DoNotOptimize(slots.data());
  }  // the transaction rolls back: the state is the same for every iteration
  state.SetItemsProcessed(state.iterations());
}

#define PLACEMENT_BENCH(policy, tag)                                              \
  BENCHMARK_CAPTURE(BM_Placement, policy##_1gpu, std::string(tag), 1, 1);         \
  BENCHMARK_CAPTURE(BM_Placement, policy##_8gpu, std::string(tag), 1, 8);         \
  BENCHMARK_CAPTURE(BM_Placement, policy##_4x8gpu, std::string(tag), 4, 8);       \
  BENCHMARK_CAPTURE(BM_Placement, policy##_64x1gpu, std::string(tag), 64, 1)

PLACEMENT_BENCH(first_fit, "first-fit");
PLACEMENT_BENCH(best_fit, "best-fit");
PLACEMENT_BENCH(rack_pack, "rack-pack");
PLACEMENT_BENCH(spread, "spread");
}  // namespace
