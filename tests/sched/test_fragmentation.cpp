// The expected-fragmentation measure of placement fgd (Weng et al., ATC'23), on hosts worked
// by hand: a mix of half whole-GPU tasks and half half-GPU shares.
#include <doctest/doctest.h>

#include <vector>

#include "sched/fragmentation.h"

using namespace schedlab;
using schedlab::sched::FragmentationMeasure;
using schedlab::sched::TaskKind;

namespace {
constexpr cluster::ModelMask kAny = ~cluster::ModelMask{0};

FragmentationMeasure half_whole_half_shares(std::uint32_t cpu = 0) {
  FragmentationMeasure m;
  m.add(TaskKind{1, 1000, cpu, kAny});
  m.add(TaskKind{1, 500, cpu, kAny});
  return m;
}

double of(const FragmentationMeasure& m, std::vector<std::uint16_t> room, std::uint32_t cpu = 64000) {
  return m.of(0, room, cpu);
}
}  // namespace

TEST_CASE("Sched.Fragmentation.free_host_has_none") {
  CHECK(of(half_whole_half_shares(), {1000, 1000}) == doctest::Approx(0));
}

TEST_CASE("Sched.Fragmentation.partly_used_gpu_is_a_fragment_for_whole_gpu_tasks") {
  // Rooms 1000 and 300: both kinds fit; 300 is too little for either, so it is a fragment
  // for both: 0.5 x 300 + 0.5 x 300.
  CHECK(of(half_whole_half_shares(), {1000, 300}) == doctest::Approx(300));
  // Rooms 1000 and 600: 600 is a fragment only for the whole-GPU tasks: 0.5 x 600.
  CHECK(of(half_whole_half_shares(), {1000, 600}) == doctest::Approx(300));
}

TEST_CASE("Sched.Fragmentation.host_no_task_fits_is_all_fragment") {
  // Rooms 400 and 400: neither a whole GPU nor a half fits; all 800 are fragments.
  CHECK(of(half_whole_half_shares(), {400, 400}) == doctest::Approx(800));
}

TEST_CASE("Sched.Fragmentation.too_few_cpus_make_every_gpu_a_fragment") {
  auto m = half_whole_half_shares(/*cpu=*/4000);
  CHECK(of(m, {1000, 1000}, 8000) == doctest::Approx(0));
  CHECK(of(m, {1000, 1000}, 2000) == doctest::Approx(2000));
}

TEST_CASE("Sched.Fragmentation.model_the_task_may_not_use_is_all_fragment") {
  FragmentationMeasure m;
  m.add(TaskKind{1, 1000, 0, cluster::ModelMask{1} << 1});  // model 1 only
  CHECK(m.of(0, std::vector<std::uint16_t>{1000, 1000}, 64000) == doctest::Approx(2000));
  CHECK(m.of(1, std::vector<std::uint16_t>{1000, 1000}, 64000) == doctest::Approx(0));
}

TEST_CASE("Sched.Fragmentation.multi_gpu_task_needs_that_many_gpus_with_room") {
  // One kind: 2 whole GPUs. Rooms 1000 and 500: it does not fit, so all 1500 are fragments;
  // rooms 1000, 1000 and 500: it fits, and the 500 is the fragment.
  FragmentationMeasure m;
  m.add(TaskKind{2, 1000, 0, kAny});
  CHECK(of(m, {1000, 500}) == doctest::Approx(1500));
  CHECK(of(m, {1000, 1000, 500}) == doctest::Approx(500));
}

TEST_CASE("Sched.Fragmentation.empty_workload_measures_nothing") {
  FragmentationMeasure m;
  CHECK(m.empty());
  CHECK(of(m, {400, 1000}) == doctest::Approx(0));
}
