// The summary's services and cron figures (metrics/long_running_stats.h) as an observer of the
// run: it learns everything from the events the loop reports (submits, drops, life steps and the
// long-running steps of observer.h), so the loop itself keeps no statistics. The scenario's
// planned services and cron entries come first, in the scenario's order; a trace's groups follow
// as their first job arrives.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "metrics/long_running_stats.h"
#include "metrics/observer.h"
#include "workload/long_running.h"
#include "workload/string_pool.h"

namespace schedlab::metrics {

class LongRunningObserver final : public RunObserver {
 public:
  // `strings`: the pool the run's jobs are interned in (their groups' names).
  LongRunningObserver(const workload::LongRunningWork& planned, const workload::StringPool& strings);

  void on_submit(const workload::JobSpec& job, engine::Time now) override;
  void on_drop(const workload::JobSpec& job, engine::Time now, const std::string& reason) override;
  void on_life(const LifeEvent& event) override;
  void on_long_running(const LongRunningEvent& event) override;
  void on_finish(engine::Time now) override;

  std::vector<ServiceFigures> services() const { return stats_.services(); }
  std::vector<CronFigures> cron() const { return stats_.cron(); }

 private:
  // The entry of the job's service (cron) group, registered at its first sight: every arrival
  // reports an event before anything else happens to the job. Null: a job of another kind, or
  // without a group (a trace's row that names none).
  const std::size_t* service_of(const workload::JobSpec& job);
  const std::size_t* cron_of(const workload::JobSpec& job);

  const workload::StringPool& strings_;
  LongRunningStats stats_;
  // Planned entries by their name as the pool stores it (printable), bound to a label when it
  // shows up; two names alike there share a label, and the later entry gets it, as in the pool.
  std::unordered_map<std::string, std::size_t> planned_services_, planned_cron_;
  std::unordered_map<workload::Label, std::size_t> service_of_, cron_of_;
  // The occurrence whose skip was just reported: the on_drop that follows is that skip's.
  workload::JobId skipping_ = sched::kNoJob;
};

}  // namespace schedlab::metrics
