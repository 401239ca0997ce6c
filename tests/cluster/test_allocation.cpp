// Allocation state: the free-GPU indexes (buckets per model, free per rack and per model),
// host searches, GPU shares, and the transaction that gang placement is built on.
#include <doctest/doctest.h>

#include <set>

#include "../support/sim_harness.h"
#include "engine/rng.h"

using namespace schedlab;
using namespace schedlab::cluster;
using namespace schedlab::testing;

namespace {
// The members of a host index, in ascending id order, whatever container backs it.
template <class Hosts>
std::set<HostId> ids(const Hosts& hosts) {
  std::set<HostId> out;
  for (HostId h : hosts) out.insert(h);
  return out;
}

// Every index of an AllocationState, copied out so that two states can be compared.
struct Snapshot {
  std::vector<std::uint16_t> whole_free;
  std::vector<std::vector<std::set<HostId>>> buckets;  // [model][k]
  std::vector<std::uint32_t> rack_free;                // [model][rack] flattened
  std::vector<std::uint64_t> free_by_model;
  std::uint64_t free_total, used_milli, shared;
  std::vector<std::vector<std::uint16_t>> shares;
  std::vector<std::set<HostId>> shared_hosts;
  bool operator==(const Snapshot&) const = default;
};

Snapshot snapshot(const AllocationState& a) {
  const auto& t = a.topology();
  Snapshot s;
  for (HostId h = 0; h < t.hosts().size(); ++h) {
    s.whole_free.push_back(a.whole_free(h));
    s.shares.push_back(a.shares(h));
  }
  for (ModelId m = 0; m < t.catalog().size(); ++m) {
    s.buckets.emplace_back();
    for (std::uint16_t k = 0; k <= t.max_host_gpus(m); ++k) s.buckets.back().push_back(ids(a.hosts_with_free(m, k)));
    for (RackId r = 0; r < t.racks().size(); ++r) s.rack_free.push_back(a.rack_free(m, r));
    s.free_by_model.push_back(a.free_gpus(m));
    s.shared_hosts.push_back(ids(a.hosts_with_shares(m)));
  }
  s.free_total = a.free_gpus();
  s.used_milli = a.used_milli();
  s.shared = a.shared_gpus();
  return s;
}

// Recomputes every index from the per-host facts and checks the state agrees.
void check_consistent(const AllocationState& a) {
  const auto& t = a.topology();
  std::vector<std::uint64_t> by_model(t.catalog().size(), 0);
  std::vector<std::uint64_t> by_rack(t.catalog().size() * t.racks().size(), 0);
  std::uint64_t shared = 0, milli = 0, total = 0;
  for (HostId h = 0; h < t.hosts().size(); ++h) {
    const auto& info = t.host(h);
    std::uint32_t shared_here = 0;
    for (auto u : a.shares(h)) {
      CHECK(u <= 1000);
      shared_here += u > 0;
      milli += u;
    }
    // Whole-GPU tasks never share: free, shared and wholly held GPUs add up to the host.
    CHECK(a.whole_free(h) + shared_here <= info.gpus);
    milli += std::uint64_t{info.gpus - a.whole_free(h) - shared_here} * 1000;
    CHECK(a.hosts_with_free(info.model, a.whole_free(h)).contains(h));
    CHECK(a.hosts_with_shares(info.model).contains(h) == (shared_here > 0));
    by_model[info.model] += a.whole_free(h);
    by_rack[info.model * t.racks().size() + info.rack] += a.whole_free(h);
    shared += shared_here;
    total += a.whole_free(h);
  }
  for (ModelId m = 0; m < t.catalog().size(); ++m) {
    CHECK(a.free_gpus(m) == by_model[m]);
    for (RackId r = 0; r < t.racks().size(); ++r) CHECK(a.rack_free(m, r) == by_rack[m * t.racks().size() + r]);
    std::size_t in_buckets = 0;
    for (std::uint16_t k = 0; k <= t.max_host_gpus(m); ++k) in_buckets += a.hosts_with_free(m, k).size();
    std::size_t hosts_of_m = 0;
    for (const auto& h : t.hosts()) hosts_of_m += h.model == m;
    CHECK(in_buckets == hosts_of_m);
  }
  CHECK(a.free_gpus() == total);
  CHECK(a.shared_gpus() == shared);
  CHECK(a.used_milli() == milli);
}
}  // namespace

TEST_CASE("Cluster.Allocation.starts_with_every_gpu_free") {
  auto catalog = small_catalog();
  Topology t(hetero_cluster(), catalog);
  AllocationState a(t);
  CHECK(a.free_gpus() == 34);
  CHECK(a.free_gpus(kA100) == 16);
  CHECK(a.free_gpus((ModelMask{1} << kH100) | (ModelMask{1} << kH200)) == 8);
  CHECK(ids(a.hosts_with_free(kV100, 4)) == std::set<HostId>{0, 1});
  CHECK(ids(a.hosts_with_free(kV100, 2)) == std::set<HostId>{2});
  CHECK(a.rack_free(kV100, 0) == 10);
  CHECK(a.rack_free(kV100, 1) == 0);
  CHECK(a.rack_free(kA100, 1) == 16);
  CHECK(a.used_milli() == 0);
  check_consistent(a);
}

TEST_CASE("Cluster.Allocation.taking_and_releasing_moves_buckets_and_rack_counts") {
  auto catalog = small_catalog();
  Topology t(hetero_cluster(), catalog);
  AllocationState a(t);
  a.take(TaskSlot{0, 3, 0, 0});
  CHECK(a.whole_free(0) == 1);
  CHECK(ids(a.hosts_with_free(kV100, 1)) == std::set<HostId>{0});
  CHECK(ids(a.hosts_with_free(kV100, 4)) == std::set<HostId>{1});
  CHECK(a.rack_free(kV100, 0) == 7);
  CHECK(a.free_gpus(kV100) == 7);
  CHECK(a.free_gpus() == 31);
  CHECK(a.used_milli() == 3000);
  check_consistent(a);
  a.release(TaskSlot{0, 3, 0, 0});
  CHECK(ids(a.hosts_with_free(kV100, 4)) == std::set<HostId>{0, 1});
  CHECK(a.used_milli() == 0);
  check_consistent(a);
}

TEST_CASE("Cluster.Allocation.first_tightest_and_roomiest_host") {
  // V100 hosts: h0 has 1 free (3 taken), h1 4 free, h2 2 free.
  auto catalog = small_catalog();
  Topology t(hetero_cluster(), catalog);
  AllocationState a(t);
  a.take(TaskSlot{0, 3, 0, 0});
  struct Case {
    std::uint16_t k;
    std::optional<HostId> first, tightest, roomiest;
  };
  const Case cases[] = {
      {0, 0, 0, 1},  // k = 0 asks for at least one free GPU
      {1, 0, 0, 1},
      {2, 1, 2, 1},
      {3, 1, 1, 1},
      {4, 1, 1, 1},
      {5, std::nullopt, std::nullopt, std::nullopt},
  };
  for (const auto& c : cases) {
    CAPTURE(c.k);
    CHECK(a.first_host_with(kV100, c.k) == c.first);
    CHECK(a.tightest_host_with(kV100, c.k) == c.tightest);
    CHECK(a.roomiest_host_with(kV100, c.k) == c.roomiest);
  }
  CHECK(a.usable_gpus(kV100, 1) == 7);
  CHECK(a.usable_gpus(kV100, 2) == 6);
  CHECK(a.usable_gpus(kV100, 4) == 4);
  // Ties go to the lowest host id.
  CHECK(a.tightest_host_with(kA100, 8) == HostId{3});
  CHECK(a.roomiest_host_with(kA100, 1) == HostId{3});
}

TEST_CASE("Cluster.Allocation.shares_sum_to_at_most_one_gpu") {
  auto catalog = small_catalog();
  Topology t(hetero_cluster(), catalog);
  AllocationState a(t);
  // Host 2 has 2 V100.
  CHECK(a.take_share(2, 300, -1) == 0);  // opens GPU slot 0
  CHECK(a.whole_free(2) == 1);
  CHECK(a.shared_gpus() == 1);
  CHECK(ids(a.hosts_with_shares(kV100)) == std::set<HostId>{2});
  CHECK(a.share_slot_with_room(2, 700, true) == 0);
  CHECK(a.share_slot_with_room(2, 701, true) == -1);  // 300 + 701 > 1000
  CHECK(a.take_share(2, 700, 0) == 0);
  CHECK(a.shares(2)[0] == 1000);
  CHECK(a.share_slot_with_room(2, 1, false) == -1);
  CHECK(a.take_share(2, 200, -1) == 1);  // opens the second GPU
  CHECK(a.whole_free(2) == 0);
  CHECK(a.free_gpus(kV100) == 8);
  CHECK(a.used_milli() == 1200);
  a.take_share(2, 500, 1);
  // Lowest slot with room vs the fullest one with room.
  CHECK(a.share_slot_with_room(2, 100, false) == 1);
  check_consistent(a);
  a.release_share(2, 0, 300);
  a.release_share(2, 0, 700);
  CHECK(a.whole_free(2) == 1);  // slot 0 is a whole free GPU again
  CHECK(a.shared_gpus() == 1);
  a.release_share(2, 1, 200);
  a.release_share(2, 1, 500);
  CHECK(a.whole_free(2) == 2);
  CHECK(ids(a.hosts_with_shares(kV100)).empty());
  CHECK(a.used_milli() == 0);
  check_consistent(a);
}

TEST_CASE("Cluster.Allocation.fullest_shared_gpu_is_the_tightest") {
  auto catalog = small_catalog();
  Topology t(uniform_cluster(1, 1, 4), catalog);
  AllocationState a(t);
  a.take_share(0, 500, -1);  // slot 0: 500
  a.take_share(0, 200, -1);  // slot 1: 200
  a.take_share(0, 800, -1);  // slot 2: 800
  CHECK(a.share_slot_with_room(0, 200, true) == 2);   // 800 + 200 fits exactly
  CHECK(a.share_slot_with_room(0, 300, true) == 0);   // 800 + 300 does not; 500 is next fullest
  CHECK(a.share_slot_with_room(0, 300, false) == 0);  // lowest with room
  CHECK(a.share_slot_with_room(0, 600, false) == 1);
  CHECK(a.share_slot_with_room(0, 900, true) == -1);
}

TEST_CASE("Cluster.Allocation.transaction_rollback_restores_every_index") {
  auto catalog = small_catalog();
  Topology t(hetero_cluster(), catalog);
  AllocationState a(t);
  a.take(TaskSlot{3, 5, 0, 0});
  a.take_share(2, 400, -1);
  const Snapshot before = snapshot(a);
  {
    AllocationTransaction tx(a);
    tx.take(TaskSlot{3, 3, 0, 0});                      // empties host 3
    tx.take(TaskSlot{4, 8, 0, 0});                      // all of host 4
    TaskSlot onto = tx.take(TaskSlot{2, 0, 500, 0});    // onto the existing share
    CHECK(onto.share_slot == 0);
    TaskSlot opened = tx.take(TaskSlot{2, 0, 700, 0});  // opens the second GPU
    CHECK(opened.share_slot == 1);
    tx.take(TaskSlot{5, 4, 0, 0});
    CHECK(a.free_gpus(kA100) == 0);
    CHECK(a.whole_free(2) == 0);
    CHECK(snapshot(a) != before);
    check_consistent(a);
  }  // discarded
  CHECK(snapshot(a) == before);
  check_consistent(a);

  AllocationTransaction explicit_rollback(a);
  explicit_rollback.take(TaskSlot{0, 4, 0, 0});
  explicit_rollback.rollback();
  CHECK(snapshot(a) == before);
}

TEST_CASE("Cluster.Allocation.committed_transaction_keeps_its_changes") {
  auto catalog = small_catalog();
  Topology t(hetero_cluster(), catalog);
  AllocationState a(t);
  {
    AllocationTransaction tx(a);
    tx.take(TaskSlot{1, 2, 0, 0});
    tx.take(TaskSlot{6, 0, 250, 0});
    tx.commit();
  }
  CHECK(a.whole_free(1) == 2);
  CHECK(a.whole_free(6) == 3);
  CHECK(a.used_milli() == 2250);
  check_consistent(a);
}

TEST_CASE("Cluster.Allocation.random_takes_and_releases_keep_indexes_consistent") {
  // A random walk of whole and shared takes and releases; after every step each index
  // must agree with a recount from the per-host facts.
  auto catalog = small_catalog();
  Topology t(hetero_cluster(), catalog);
  AllocationState a(t);
  engine::Rng rng(17);
  std::vector<TaskSlot> held;
  for (int step = 0; step < 400; ++step) {
    bool release = !held.empty() && rng.uniform() < 0.45;
    if (release) {
      auto i = static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(held.size()) - 1));
      a.release(held[i]);
      held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      auto h = static_cast<HostId>(rng.uniform_int(0, static_cast<std::int64_t>(t.hosts().size()) - 1));
      if (rng.uniform() < 0.5) {
        auto milli = static_cast<std::uint16_t>(rng.uniform_int(1, 999));
        int slot = a.share_slot_with_room(h, milli, rng.uniform() < 0.5);
        if (slot < 0 && a.whole_free(h) == 0) continue;
        TaskSlot s{h, 0, milli, 0};
        s.share_slot = a.take_share(h, milli, slot);
        held.push_back(s);
      } else {
        if (a.whole_free(h) == 0) continue;
        auto n = static_cast<std::uint16_t>(rng.uniform_int(1, a.whole_free(h)));
        a.take(TaskSlot{h, n, 0, 0});
        held.push_back(TaskSlot{h, n, 0, 0});
      }
    }
    check_consistent(a);
  }
  for (const auto& s : held) a.release(s);
  CHECK(a.free_gpus() == 34);
  CHECK(a.used_milli() == 0);
  CHECK(a.shared_gpus() == 0);
}

// --- CPUs and memory ---------------------------------------------------------------------

namespace {
// Rack g: hosts 0-1, 4 x V100, 16 CPUs, 64 GB; host 2, 8 x A100, 48 CPUs, 256 GB.
// Rack c: hosts 3-4 without GPUs, 32 CPUs, 128 GB.
ClusterSpec cpu_cluster() {
  ClusterSpec spec;
  spec.name = "cpus";
  spec.racks.push_back(RackSpec{"g", 1, {{2, 4, kV100, 12.5, 16000, 64 * 1024}, {1, 8, kA100, 25, 48000, 256 * 1024}}, 0, 1});
  spec.racks.push_back(RackSpec{"c", 1, {{2, 0, 0, 12.5, 32000, 128 * 1024}}, 0, 1});
  return spec;
}

TaskSlot task(HostId h, std::uint16_t gpus, std::uint32_t cpu_milli, std::uint32_t mem_mib) {
  return TaskSlot{h, gpus, 0, 0, cpu_milli, mem_mib};
}

// The host a search without indexes finds: every host of the mask's classes that fits,
// ranked as `pick` says.
std::optional<HostId> brute_cpu_host(const AllocationState& a, ModelMask mask, const TaskNeed& need, HostPick pick) {
  const auto& t = a.topology();
  std::optional<HostId> best;
  for (HostId h = 0; h < t.hosts().size(); ++h) {
    const bool in = t.host(h).gpus ? (mask >> t.host(h).model & 1) : (mask & kHostsWithoutGpus) != 0;
    if (!in || !a.fits(h, need)) continue;
    if (!best) {
      best = h;
      continue;
    }
    const auto f = a.free_cpu_milli(h), b = a.free_cpu_milli(*best);
    if ((pick == HostPick::tightest && f < b) || (pick == HostPick::roomiest && f > b)) best = h;
  }
  return best;
}

std::optional<HostId> brute_tightest(const AllocationState& a, ModelId m, std::uint16_t k, const TaskNeed& need) {
  std::optional<HostId> best;
  for (HostId h = 0; h < a.topology().hosts().size(); ++h) {
    const auto& info = a.topology().host(h);
    if (info.gpus == 0 || info.model != m || a.whole_free(h) < std::max<std::uint16_t>(k, 1) || !a.fits(h, need)) continue;
    if (!best || a.whole_free(h) < a.whole_free(*best)) best = h;
  }
  return best;
}
}  // namespace

TEST_CASE("Cluster.Allocation.cpus_and_memory_are_taken_and_released_with_the_task") {
  auto catalog = small_catalog();
  Topology t(cpu_cluster(), catalog);
  AllocationState a(t);
  CHECK(t.total_cpu_milli() == 2 * 16000 + 48000 + 2 * 32000);
  CHECK(t.models_present() == ((ModelMask{1} << kV100) | (ModelMask{1} << kA100) | kHostsWithoutGpus));
  CHECK(t.min_cpu_milli_per_gpu(kV100) == 4000);
  a.take(task(0, 2, 12000, 8 * 1024));
  CHECK(a.free_cpu_milli(0) == 4000);
  CHECK(a.free_mem_mib(0) == 56 * 1024);
  CHECK(a.used_cpu_milli() == 12000);
  CHECK(a.fits(0, {4000, 56 * 1024}));
  CHECK_FALSE(a.fits(0, {4001, 0}));
  // 2 GPUs are free but only 4 CPUs: host 0 is short for its free GPUs.
  CHECK(ids(a.short_hosts(kV100)) == std::set<HostId>{0});
  CHECK(a.task_room(0, 1, {3000, 1024}) == 1);
  CHECK(a.task_room(0, 1, {}) == 2);
  {
    AllocationTransaction tx(a);
    tx.take(task(3, 0, 32000, 1024));  // all of a CPU-only host's CPUs
    tx.take(TaskSlot{2, 0, 250, 0, 2000, 2048});  // a share with CPUs
    CHECK(a.free_cpu_milli(3) == 0);
    CHECK(a.free_cpu_milli(2) == 46000);
    CHECK(a.used_cpu_milli() == 12000 + 32000 + 2000);
  }  // rolled back
  CHECK(a.free_cpu_milli(3) == 32000);
  CHECK(a.free_cpu_milli(2) == 48000);
  CHECK(a.used_cpu_milli() == 12000);
  a.release(task(0, 2, 12000, 8 * 1024));
  CHECK(a.free_cpu_milli(0) == 16000);
  CHECK(a.used_cpu_milli() == 0);
  CHECK(a.short_hosts(kV100).empty());
  check_consistent(a);
}

TEST_CASE("Cluster.Allocation.gpu_searches_pass_over_hosts_without_the_cpus_or_memory") {
  auto catalog = small_catalog();
  Topology t(cpu_cluster(), catalog);
  AllocationState a(t);
  // Host 0 keeps 3 GPUs but 2 CPUs; host 1 is untouched; host 2 (A100) has its GPUs.
  a.take(task(0, 1, 14000, 1024));
  struct Case {
    std::uint16_t k;
    TaskNeed need;
    std::optional<HostId> first, tightest, roomiest;
  };
  const Case cases[] = {
      {1, {}, 0, 0, 1},                       // GPUs alone: host 0 is the tightest
      {1, {2000, 1024}, 0, 0, 1},             // host 0 still has 2 CPUs
      {1, {3000, 1024}, 1, 1, 1},             // it has not 3: the next host in the same order
      {1, {4000, 60 * 1024}, 1, 1, 1},        // memory: host 1 has 64 GB
      {1, {4000, 65 * 1024}, std::nullopt, std::nullopt, std::nullopt},
      {4, {16000, 0}, 1, 1, 1},
      {4, {16001, 0}, std::nullopt, std::nullopt, std::nullopt},
  };
  for (const auto& c : cases) {
    CAPTURE(c.k);
    CAPTURE(c.need.cpu_milli);
    CAPTURE(c.need.mem_mib);
    CHECK(a.first_host_with(kV100, c.k, c.need) == c.first);
    CHECK(a.tightest_host_with(kV100, c.k, c.need) == c.tightest);
    CHECK(a.roomiest_host_with(kV100, c.k, c.need) == c.roomiest);
  }
  // GPUs a task of one GPU and 3 CPUs can use: host 0's 3 free GPUs are stranded (2 CPUs left).
  CHECK(a.usable_gpus(kV100, 1) == 7);
  CHECK(a.usable_gpus(kV100, 1, {3000, 0}) == 4);
  CHECK(a.usable_gpus(kV100, 1, {2000, 0}) == 5);   // one task fits host 0: one of its GPUs
  CHECK(a.usable_gpus(kV100, 1, {8000, 0}) == 2);   // asks more per GPU than hosts have: every host checked
  CHECK(a.usable_gpus(kV100, 2, {8000, 0}) == 4);
}

TEST_CASE("Cluster.Allocation.hosts_for_tasks_without_gpus_by_free_cpus") {
  auto catalog = small_catalog();
  Topology t(cpu_cluster(), catalog);
  AllocationState a(t);
  a.take(task(3, 0, 20000, 1024));  // CPU-only host 3: 12 CPUs left, host 4: 32
  a.take(task(1, 4, 10000, 1024));  // V100 host 1: 6 CPUs left, host 0: 16
  const ModelMask cpu_only = kHostsWithoutGpus;
  const ModelMask all = t.models_present();
  struct Case {
    ModelMask mask;
    TaskNeed need;
    HostPick pick;
    std::optional<HostId> host;
  };
  const Case cases[] = {
      {cpu_only, {4000, 1024}, HostPick::lowest, 3},
      {cpu_only, {4000, 1024}, HostPick::tightest, 3},
      {cpu_only, {4000, 1024}, HostPick::roomiest, 4},
      {cpu_only, {13000, 1024}, HostPick::tightest, 4},
      {cpu_only, {33000, 0}, HostPick::lowest, std::nullopt},
      {all, {4000, 1024}, HostPick::lowest, 0},
      {all, {4000, 1024}, HostPick::tightest, 1},  // 6 CPUs left on the V100 host 1
      {all, {4000, 1024}, HostPick::roomiest, 2},  // the A100 host's 48
      {all, {4000, 200 * 1024}, HostPick::tightest, 2},  // only the A100 host has 200 GB
      {ModelMask{1} << kV100, {17000, 0}, HostPick::lowest, std::nullopt},
  };
  for (const auto& c : cases) {
    CAPTURE(c.need.cpu_milli);
    CAPTURE(static_cast<int>(c.pick));
    CHECK(a.cpu_host(c.mask, c.need, c.pick) == c.host);
  }
  const std::vector<HostId> avoid{4};
  CHECK(a.cpu_host(cpu_only, {4000, 0}, HostPick::roomiest, &avoid) == HostId{3});
}

TEST_CASE("Cluster.Allocation.a_host_wholly_down_lends_no_cpus") {
  auto catalog = small_catalog();
  Topology t(cpu_cluster(), catalog);
  AllocationState a(t);
  const ModelMask v100 = ModelMask{1} << kV100;
  CHECK(a.cpu_host(v100, {1000, 0}, HostPick::lowest) == HostId{0});
  a.set_down(0, 1);  // one GPU down: the host still works
  CHECK_FALSE(a.host_down(0));
  CHECK(a.cpu_host(v100, {1000, 0}, HostPick::lowest) == HostId{0});
  a.set_down(0, 3);  // all four: the host is down, its CPUs too
  CHECK(a.host_down(0));
  CHECK(a.cpu_host(v100, {1000, 0}, HostPick::lowest) == HostId{1});
  a.set_up(0, 4);
  CHECK_FALSE(a.host_down(0));
  CHECK(a.cpu_host(v100, {1000, 0}, HostPick::lowest) == HostId{0});
  check_consistent(a);
}

TEST_CASE("Cluster.Allocation.random_walk_with_cpus_agrees_with_searches_without_indexes") {
  // Random tasks with and without GPUs on hosts of 1,000-CPU-wide buckets and on huge hosts
  // (several CPUs per bucket); after every step the indexed searches agree with a scan.
  auto catalog = small_catalog();
  ClusterSpec spec = cpu_cluster();
  spec.racks.push_back(RackSpec{"huge", 1, {{2, 0, 0, 12.5, 500'000, 4096 * 1024}, {1, 2, kA100, 25, 300'500, 1024}}, 0, 1});
  Topology t(spec, catalog);
  AllocationState a(t);
  engine::Rng rng(23);
  std::vector<TaskSlot> held;
  for (int step = 0; step < 600; ++step) {
    if (!held.empty() && rng.uniform() < 0.45) {
      auto i = static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(held.size()) - 1));
      a.release(held[i]);
      held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      auto h = static_cast<HostId>(rng.uniform_int(0, static_cast<std::int64_t>(t.hosts().size()) - 1));
      const std::uint16_t g = t.host(h).gpus && a.whole_free(h) ? static_cast<std::uint16_t>(rng.uniform_int(0, a.whole_free(h))) : 0;
      const TaskNeed need{static_cast<std::uint32_t>(rng.uniform_int(1, 20'000)),
                          static_cast<std::uint32_t>(rng.uniform_int(0, 40 * 1024))};
      if (!a.fits(h, need)) continue;
      held.push_back(task(h, g, need.cpu_milli, need.mem_mib));
      a.take(held.back());
    }
    check_consistent(a);
    const TaskNeed probe{static_cast<std::uint32_t>(rng.uniform_int(1, 40'000)),
                         static_cast<std::uint32_t>(rng.uniform_int(0, 64 * 1024))};
    for (ModelMask mask : {kHostsWithoutGpus, t.models_present(), ModelMask{1} << kA100})
      for (HostPick pick : {HostPick::lowest, HostPick::tightest, HostPick::roomiest}) {
        CAPTURE(step);
        CHECK(a.cpu_host(mask, probe, pick) == brute_cpu_host(a, mask, probe, pick));
      }
    for (std::uint16_t k : {1, 2, 4})
      for (ModelId m : {kV100, kA100}) CHECK(a.tightest_host_with(m, k, probe) == brute_tightest(a, m, k, probe));
    // The short-host index is exactly the hosts below their free GPUs' share of CPUs or memory.
    for (HostId h = 0; h < t.hosts().size(); ++h) {
      const auto& info = t.host(h);
      if (!info.gpus) continue;
      const bool is_short = std::uint64_t{a.free_cpu_milli(h)} * info.gpus < std::uint64_t{a.whole_free(h)} * info.cpu_milli ||
                            std::uint64_t{a.free_mem_mib(h)} * info.gpus < std::uint64_t{a.whole_free(h)} * info.mem_mib;
      CHECK(a.short_hosts(info.model).contains(h) == is_short);
    }
  }
  for (const auto& s : held) a.release(s);
  CHECK(a.used_cpu_milli() == 0);
  CHECK(a.used_mem_mib() == 0);
}
