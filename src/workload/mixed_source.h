// A trace's jobs (or none) merged in submit order with the jobs of the scenario's services
// and cron entries (workload/long_running.h): one job per service instance over the span it is
// wanted (kind `service`; its `duration` is that span, kTimeMax while it lasts as long as the
// run's other work), one batch job per cron occurrence (kind `cron`). Both carry their
// service's or entry's name as `group`. At one instant the trace's jobs come first, then
// services, then cron entries in list order (so a parent's occurrence precedes its child's).
// An unbounded schedule (`R/...`) stops at `until`, and with a trace at the trace's last
// submit: it never keeps a run going past its other work.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "workload/job_spec.h"
#include "workload/long_running.h"

namespace schedlab::workload {

class MixedSource final : public JobSource {
 public:
  // `base` may be null: a workload of services and cron jobs alone.
  MixedSource(std::unique_ptr<JobSource> base, const LongRunningWork& work);

  bool next(JobSpec& out) override;
  StringPool& strings() override { return base_ ? base_->strings() : own_strings_; }
  std::uint64_t skipped_rows() const override { return base_ ? base_->skipped_rows() : 0; }
  double fraction_done() const override { return base_ ? base_->fraction_done() : -1.0; }
  std::vector<std::pair<std::string, std::uint64_t>> skipped_by_reason() const override {
    return base_ ? base_->skipped_by_reason() : std::vector<std::pair<std::string, std::uint64_t>>{};
  }

 private:
  struct CronCursor {
    std::uint64_t k = 0;
    std::optional<engine::Time> at;  // the next occurrence's trace time; nullopt when none is left
  };
  // The entry's next occurrence at or after its cursor, skipping those before the epoch.
  void settle(std::size_t entry);
  void advance(std::size_t entry);
  JobSpec service_job(const ServiceSpec& s, const InstanceSpan& span);
  JobSpec cron_job(std::size_t entry, engine::Time at);
  void fill_shape(JobSpec& job, const EntryShape& shape, const std::string& group);

  std::unique_ptr<JobSource> base_;
  StringPool own_strings_;
  const LongRunningWork& work_;
  std::optional<JobSpec> base_next_;
  bool base_done_ = false;
  engine::Time base_last_ = 0;
  std::vector<JobSpec> services_;  // every instance job, in submit order
  std::size_t next_service_ = 0;
  std::vector<CronCursor> cron_;
};

}  // namespace schedlab::workload
