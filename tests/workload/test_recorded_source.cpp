// RecordedSource: the jobs a pre-pass read come back the same, and the readers' notices are
// said again where they were given (on opening, during the same next() call).
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "util/notice.h"
#include "workload/recorded_source.h"

using namespace schedlab;
using namespace schedlab::workload;

namespace {
// Hands out `n` jobs (line = 1..n) and tells its notices as a trace reader would: one on
// opening, one while reading job 3, one at the end.
class TellingSource final : public JobSource {
 public:
  TellingSource(std::uint32_t n, util::Notices& notices) : n_(n), notices_(notices) { notices_.say("opened"); }
  bool next(JobSpec& out) override {
    if (given_ == n_) {
      notices_.say("end");
      return false;
    }
    out = JobSpec{};
    out.id = given_;
    out.line = ++given_;
    if (given_ == 3) notices_.say("at job 3");
    return true;
  }
  StringPool& strings() override { return strings_; }
  std::uint64_t skipped_rows() const override { return 7; }

 private:
  std::uint32_t n_, given_ = 0;
  util::Notices& notices_;
  StringPool strings_;
};
}  // namespace

TEST_CASE("Workload.RecordedSource.replays_the_jobs_and_says_each_notice_at_its_place") {
  std::uint32_t jobs = 50000;  // several blocks, freed as they are handed out
  RecordedSource source([jobs](util::Notices& n) { return std::make_unique<TellingSource>(jobs, n); });
  JobSpec job;
  std::uint32_t read = 0;
  while (source.next(job)) REQUIRE(job.line == ++read);
  REQUIRE(read == jobs);

  util::Notices said(util::Notices::Hold{});
  source.replay_to(said);
  CHECK(said.take_held() == std::vector<std::string>{"opened"});
  for (std::uint32_t i = 1; i <= jobs; ++i) {
    REQUIRE(source.next(job));
    REQUIRE(job.line == i);
    REQUIRE(job.id == i - 1);
    const auto now = said.take_held();
    REQUIRE(now == (i == 3 ? std::vector<std::string>{"at job 3"} : std::vector<std::string>{}));
  }
  CHECK(source.fraction_done() == doctest::Approx(1.0));
  CHECK_FALSE(source.next(job));
  CHECK(said.take_held() == std::vector<std::string>{"end"});
  CHECK_FALSE(source.next(job));
  CHECK(said.held() == 0);
  CHECK(source.skipped_rows() == 7);
}

TEST_CASE("Workload.RecordedSource.a_notice_already_said_is_not_said_again") {
  RecordedSource source([](util::Notices& n) { return std::make_unique<TellingSource>(4, n); });
  JobSpec job;
  while (source.next(job)) {
  }
  util::Notices said(util::Notices::Hold{});
  said.say("at job 3");  // said before the run's replay (a compare's earlier variant)
  said.take_held();
  source.replay_to(said);
  while (source.next(job)) {
  }
  CHECK(said.take_held() == std::vector<std::string>{"opened", "end"});
}
