// Counting a run's jobs against kMaxJobsPerRun.
#include "workload/job_limit.h"

#include <fmt/format.h>

#include "util/error.h"

namespace schedlab::workload {

std::string too_many_jobs_message(std::uint64_t count, const std::string& what) {
  return fmt::format("{} {} is more than the {} jobs a run may have", count, what, kMaxJobsPerRun);
}

void check_job_count(std::uint64_t count, const std::string& what, const std::string& file, long line,
                     const std::string& field) {
  if (count > kMaxJobsPerRun) throw util::InputError(file, line, field, too_many_jobs_message(count, what));
}

namespace {

class JobLimit final : public ForwardingJobSource {
 public:
  JobLimit(std::unique_ptr<JobSource> inner, std::string file, long line, std::string field)
      : ForwardingJobSource(std::move(inner)), file_(std::move(file)), line_(line), field_(std::move(field)) {}

  bool next(JobSpec& out) override {
    if (!inner_->next(out)) return false;
    if (++handed_out_ > kMaxJobsPerRun)
      throw util::InputError(
          file_, line_, field_,
          fmt::format("the workload has more than the {} jobs a run may have (a trace's rows, services' "
                      "instances and cron occurrences together)",
                      kMaxJobsPerRun));
    return true;
  }

 private:
  std::string file_;
  long line_;
  std::string field_;
  std::uint64_t handed_out_ = 0;
};

}  // namespace

std::unique_ptr<JobSource> with_job_limit(std::unique_ptr<JobSource> source, std::string file, long line,
                                          std::string field) {
  return std::make_unique<JobLimit>(std::move(source), std::move(file), line, std::move(field));
}

}  // namespace schedlab::workload
