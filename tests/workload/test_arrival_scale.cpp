// workload.arrival_scale (workload/arrival_scale.h): the gaps between submissions scaled from
// the first submission, everything else as the trace gives it.
#include <doctest/doctest.h>

#include <memory>

#include "support/submit_times.h"
#include "workload/arrival_scale.h"

using namespace schedlab;
using namespace schedlab::workload;

namespace {

constexpr engine::Time secs(std::int64_t seconds) { return seconds * engine::kMicrosPerSecond; }

std::vector<engine::Time> submits_after(double scale, std::vector<std::int64_t> at) {
  auto src = with_arrival_scale(std::make_unique<testing::SubmitTimes>(std::move(at)), scale);
  std::vector<engine::Time> out;
  JobSpec j;
  while (src->next(j)) {
    CHECK(j.duration == secs(100));
    out.push_back(j.submit);
  }
  return out;
}

}  // namespace

TEST_CASE("Workload.ArrivalScale.half_the_gaps_doubles_the_load_from_the_first_submission") {
  // Submissions at 10, 20, 40 and 40 s: gaps 10, 20, 0. Halved: 10, 15, 25, 25.
  CHECK(submits_after(0.5, {10, 20, 40, 40}) == std::vector<engine::Time>{secs(10), secs(15), secs(25), secs(25)});
}

TEST_CASE("Workload.ArrivalScale.twice_the_gaps_halves_the_load") {
  CHECK(submits_after(2, {10, 20, 40}) == std::vector<engine::Time>{secs(10), secs(30), secs(70)});
}

TEST_CASE("Workload.ArrivalScale.one_leaves_the_trace_as_it_is") {
  CHECK(submits_after(1, {3, 5, 8}) == std::vector<engine::Time>{secs(3), secs(5), secs(8)});
}

TEST_CASE("Workload.ArrivalScale.thousandfold_gaps_near_the_end_of_time_saturate_instead_of_wrapping") {
  const auto late = engine::kTimeMax / engine::kMicrosPerSecond - 10;
  const auto out = submits_after(1000, {0, late});
  CHECK(out[1] == engine::kTimeMax);
}
