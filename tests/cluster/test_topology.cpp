// The topology: racks and hosts as built from a spec, tiers and hops through the graph,
// GPU counts per model and the largest host per model.
#include <doctest/doctest.h>

#include "../support/sim_harness.h"

using namespace schedlab;
using namespace schedlab::cluster;
using namespace schedlab::testing;

TEST_CASE("Cluster.Topology.identical_racks_are_numbered_and_hosts_laid_out_in_order") {
  auto catalog = small_catalog();
  Topology t(uniform_cluster(2, 2, 4), catalog);
  REQUIRE(t.racks().size() == 2);
  REQUIRE(t.hosts().size() == 4);
  CHECK(t.rack(0).name == "r-0");
  CHECK(t.rack(1).name == "r-1");
  CHECK(t.rack(1).first_host == 2);
  CHECK(t.rack(1).hosts == 2);
  CHECK(t.host(3).rack == 1);
  CHECK(t.host(3).first_gpu == 12);
  CHECK(t.total_gpus() == 16);
  // No uplink given and oversubscription 1: the uplink carries the sum of the host NICs.
  CHECK(t.rack(0).uplink_gbps == doctest::Approx(25.0));
  CHECK(t.rack(0).oversubscription == doctest::Approx(1.0));
}

TEST_CASE("Cluster.Topology.tiers_and_hops_follow_the_tree") {
  // GPUs 0-3 on host 0 and 4-7 on host 1 (rack 0); 8-11 on host 2 (rack 1).
  auto catalog = small_catalog();
  Topology t(uniform_cluster(2, 2, 4), catalog);
  struct Case {
    GpuIndex a, b;
    Tier tier;
    int hops;
  };
  const Case cases[] = {
      {5, 5, Tier::same_gpu, 0},    // the same GPU
      {0, 3, Tier::same_host, 2},   // gpu - host - gpu
      {3, 4, Tier::same_rack, 4},   // gpu - host - rack - host - gpu
      {7, 8, Tier::cross_rack, 6},  // ... - rack - spine - rack - ...
      {15, 0, Tier::cross_rack, 6},
  };
  for (const auto& c : cases) {
    CAPTURE(c.a);
    CAPTURE(c.b);
    CHECK(t.tier(c.a, c.b) == c.tier);
    CHECK(t.hops(c.a, c.b) == c.hops);
    CHECK(t.hops(c.b, c.a) == c.hops);
  }
  CHECK(std::string(tier_name(Tier::same_rack)) == "same-rack");
  CHECK(t.host_tier(1, 1) == Tier::same_host);
  CHECK(t.host_tier(0, 1) == Tier::same_rack);
  CHECK(t.host_tier(1, 2) == Tier::cross_rack);
}

TEST_CASE("Cluster.Topology.counts_per_model_and_largest_host") {
  auto catalog = small_catalog();
  Topology t(hetero_cluster(), catalog);
  CHECK(t.total_gpus() == 34);
  CHECK(t.gpus_of_model(kV100) == 10);
  CHECK(t.gpus_of_model(kA100) == 16);
  CHECK(t.gpus_of_model(kH100) == 4);
  CHECK(t.gpus_of_model(kH200) == 4);
  CHECK(t.max_host_gpus(kV100) == 4);
  CHECK(t.max_host_gpus(kA100) == 8);
  CHECK(t.max_host_gpus() == 8);
  CHECK(t.models_present() == 0b1111);
  // Host of a GPU, at the edges of the host with two GPUs.
  CHECK(t.host_of_gpu(0) == 0);
  CHECK(t.host_of_gpu(8) == 2);
  CHECK(t.host_of_gpu(9) == 2);
  CHECK(t.host_of_gpu(10) == 3);
  CHECK(t.host_of_gpu(33) == 6);
}

TEST_CASE("Cluster.Topology.model_absent_from_the_cluster_counts_zero") {
  auto catalog = small_catalog();
  Topology t(uniform_cluster(1, 2, 8, kA100), catalog);
  CHECK(t.gpus_of_model(kV100) == 0);
  CHECK(t.max_host_gpus(kV100) == 0);
  CHECK(t.models_present() == (ModelMask{1} << kA100));
}

TEST_CASE("Cluster.Topology.uplink_or_oversubscription") {
  auto catalog = small_catalog();
  ClusterSpec spec;
  spec.racks.push_back(RackSpec{"given", 1, {{4, 8, kV100, 25}}, 50, 1});    // uplink 50: 100/50 = 2:1
  spec.racks.push_back(RackSpec{"derived", 1, {{4, 8, kV100, 25}}, 0, 4});  // 100 / 4 = 25
  Topology t(spec, catalog);
  CHECK(t.rack(0).name == "given");
  CHECK(t.rack(0).uplink_gbps == doctest::Approx(50));
  CHECK(t.rack(0).oversubscription == doctest::Approx(2));
  CHECK(t.rack(1).uplink_gbps == doctest::Approx(25));
  CHECK(t.rack(1).oversubscription == doctest::Approx(4));
}

TEST_CASE("Cluster.GpuCatalog.find_and_names") {
  auto catalog = small_catalog();
  CHECK(catalog.find("A100") == ModelId{1});
  CHECK_FALSE(catalog.find("a100").has_value());
  CHECK(catalog.names() == std::vector<std::string>{"V100", "A100", "H100", "H200"});
  CHECK(catalog.all() == 0b1111);
  CHECK_THROWS_AS(GpuCatalog(std::vector<GpuModel>(65)), std::length_error);
}

TEST_CASE("Cluster.Placement.summaries") {
  auto catalog = small_catalog();
  Topology t(hetero_cluster(), catalog);
  Placement p{{{3, 4, 0, 0}, {3, 4, 0, 0}, {5, 2, 0, 0}, {0, 0, 250, 1}}};
  CHECK(p.gpus() == 11);
  CHECK(p.used_milli() == 10250);
  CHECK(p.distinct_hosts() == 3);
  CHECK(p.distinct_racks(t) == 3);
  CHECK(p.models(t) == ((ModelMask{1} << kA100) | (ModelMask{1} << kH100) | (ModelMask{1} << kV100)));
  CHECK(p.span(t) == Tier::cross_rack);
  CHECK(p.describe() == "h3:8+h5:2+h0:0.25");
  CHECK(Placement{{{1, 2, 0, 0}, {1, 2, 0, 0}}}.span(t) == Tier::same_host);
  CHECK(Placement{{{0, 2, 0, 0}, {2, 2, 0, 0}}}.span(t) == Tier::same_rack);
}
