// "Never fits" as a plain function: a job against the cluster's host shapes and the model
// groups its filters allow, table by table, each reason word for word.
#include <doctest/doctest.h>

#include "sched/never_fits.h"
#include "sched_fixtures.h"

using namespace schedlab;
using namespace schedlab::testing;

namespace {
constexpr cluster::ModelMask nf_bit(cluster::ModelId m) { return cluster::ModelMask{1} << m; }
constexpr std::size_t kNfNoGpuClass = 4;  // small_catalog() has four models

// Two 4-GPU V100 hosts (32 CPUs, 256 GB), one 8-GPU A100 host (64 CPUs, 512 GB), two
// CPU-only hosts (16 CPUs, 64 GB).
const std::vector<sched::HostShape> kNfShapes = {
    {kV100, 4, 32000, 256 * 1024, 2},
    {kA100, 8, 64000, 512 * 1024, 1},
    {kNfNoGpuClass, 0, 16000, 64 * 1024, 2},
};

struct NeverFitsCase {
  const char* what;
  std::uint32_t tasks, gpus;
  std::uint16_t milli;
  std::uint32_t cpu_milli, mem_mib;
  std::vector<cluster::ModelMask> groups;
  cluster::ModelMask requested;
  const char* expected;  // empty: it fits
};
}  // namespace

TEST_CASE("Sched.NeverFits.reasons_by_case") {
  const auto catalog = small_catalog();
  const cluster::ModelMask v100_a100 = nf_bit(kV100) | nf_bit(kA100);
  // clang-format off
  const NeverFitsCase cases[] = {
      {"fits on the V100 hosts", 2, 4, 1000, 0, 0, {nf_bit(kV100)}, v100_a100, ""},
      {"fits across both models", 4, 4, 1000, 0, 0, {v100_a100}, v100_a100, ""},
      {"more tasks than the cluster holds", 3, 4, 1000, 0, 0, {nf_bit(kV100)}, v100_a100,
       "unresolvable: needs 3 tasks x 4 GPUs; the cluster fits at most 2"},
      {"one generation: each group alone is too small", 4, 4, 1000, 0, 0, {nf_bit(kA100), nf_bit(kV100)}, v100_a100,
       "unresolvable: needs 4 tasks x 4 GPUs of one generation; the cluster fits at most 2"},
      {"a task larger than any allowed host", 1, 8, 1000, 0, 0, {nf_bit(kV100)}, v100_a100,
       "unresolvable: a task needs 8 GPUs on one host; the largest allowed host has 4"},
      {"no allowed model in the cluster", 1, 1, 1000, 0, 0, {0}, nf_bit(kH100) | cluster::kHostsWithoutGpus,
       "unresolvable: no GPU of the allowed model(s) in the cluster (requested H100)"},
      {"too many CPUs for a host with the GPUs", 1, 1, 1000, 40000, 0, {nf_bit(kV100)}, v100_a100,
       "unresolvable: a task needs 40 CPUs on one host; the largest allowed host with the GPUs has 32"},
      {"too much memory for a host with the GPUs", 1, 1, 1000, 0, 300 * 1024, {nf_bit(kV100)}, v100_a100,
       "unresolvable: a task needs 300 GB of memory on one host; the largest allowed host with the GPUs has 256 GB"},
      {"CPUs limit the tasks per host", 3, 1, 1000, 20000, 0, {nf_bit(kV100)}, v100_a100,
       "unresolvable: needs 3 tasks x 1 GPUs; the cluster fits at most 2"},
      {"a share fits on any host with room", 1, 1, 500, 0, 0, {nf_bit(kV100)}, v100_a100, ""},
      {"a job that needs nothing", 1, 0, 1000, 0, 0, {cluster::kHostsWithoutGpus}, v100_a100,
       "unresolvable: needs no GPU and no CPU"},
      {"a CPU job no host may take", 1, 0, 1000, 1000, 0, {0}, v100_a100,
       "unresolvable: needs no GPU, and no host may take it (no CPU-only host, and the filters keep it off hosts "
       "with GPUs)"},
      {"CPU tasks on the CPU-only hosts", 8, 0, 1000, 4000, 0, {cluster::kHostsWithoutGpus}, v100_a100, ""},
      {"more CPU tasks than the CPU-only hosts hold", 9, 0, 1000, 4000, 0, {cluster::kHostsWithoutGpus}, v100_a100,
       "unresolvable: needs 9 tasks x 4 CPUs; the cluster fits at most 8"},
      {"a CPU task larger than any allowed host", 1, 0, 1000, 20000, 0, {cluster::kHostsWithoutGpus}, v100_a100,
       "unresolvable: a task needs 20 CPUs on one host; the largest allowed host has 16"},
  };
  // clang-format on
  for (const auto& c : cases) {
    CAPTURE(c.what);
    auto spec = spec_of(c.tasks, c.gpus, c.milli);
    spec.cpu_milli = c.cpu_milli;
    spec.mem_mib = c.mem_mib;
    auto job = pending(spec, c.requested);
    auto why = sched::never_fits(job, c.groups, kNfShapes, catalog);
    CHECK(why.value_or("") == std::string(c.expected));
  }
}

TEST_CASE("Sched.NeverFits.host_shapes_counts_each_shape_once") {
  const auto catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(2, 3, 4), catalog);
  auto shapes = sched::host_shapes(topo);
  REQUIRE(shapes.size() == 1);
  CHECK(shapes[0].cls == kV100);
  CHECK(shapes[0].gpus == 4);
  CHECK(shapes[0].count == 6);
}
