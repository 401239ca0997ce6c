// RecordedSource: a workload read once, then handed out again from memory. `run` reads its
// whole workload before it says anything (run/workload_scan.h: the run's checks of every job
// and the offered load it prints first); it then replays the jobs that pre-pass kept rather
// than parsing the trace a second time, which cost a million-job replay a tenth of its time.
// The notices the readers gave are said again at the point of the stream where they were
// given (on opening, or during the same next() call), so the run says the same things in the
// same order as a run that reads its trace as it goes. The jobs cost memory (sizeof(JobSpec)
// each) until the run takes them: their blocks are freed as it goes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "util/notice.h"
#include "workload/job_buffer.h"
#include "workload/job_spec.h"

namespace schedlab::workload {

class RecordedSource final : public JobSource {
 public:
  // Opens the workload through `open`, whose readers tell their notices to the Notices given
  // (one that holds them). next() then reads it and keeps every job it hands out.
  explicit RecordedSource(const std::function<std::unique_ptr<JobSource>(util::Notices&)>& open);
  // From now on next() hands out the kept jobs again, from the first, and says the held
  // notices to `notices` where they were given; those given on opening are said now. Once.
  void replay_to(util::Notices& notices);

  bool next(JobSpec& out) override;
  StringPool& strings() override { return inner_->strings(); }
  std::uint64_t skipped_rows() const override { return inner_->skipped_rows(); }
  double fraction_done() const override;
  std::vector<std::pair<std::string, std::uint64_t>> skipped_by_reason() const override {
    return inner_->skipped_by_reason();
  }
  std::string declarations() const override { return inner_->declarations(); }

 private:
  struct HeldNotice {
    std::uint64_t call;  // said during the call-th next() (from 1), or 0: on opening
    std::string text;
  };
  void keep_held(std::uint64_t call);

  util::Notices held_{util::Notices::Hold{}};  // before inner_: its readers hold a pointer to it
  std::unique_ptr<JobSource> inner_;
  JobBuffer jobs_;
  std::vector<HeldNotice> notices_;
  util::Notices* replay_ = nullptr;  // set: replaying
  std::uint64_t calls_ = 0;    // next() calls, in this phase
  std::size_t given_ = 0;      // jobs handed out again
  std::size_t said_ = 0;       // notices_ said again
};

}  // namespace schedlab::workload
