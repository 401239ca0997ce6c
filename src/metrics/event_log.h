// A run's log of job lives as CSV (`schedlab run --events FILE`): every start, stop (with
// its reason in words), restart, finish, fail and drop, one row each, in simulated-time order,
// for researchers who debug a policy.
#pragma once

#include <ostream>
#include <string_view>
#include <string>
#include <unordered_map>
#include <vector>

#include "metrics/observer.h"

namespace schedlab::metrics {

// The event log's header: --events replaces only a file that starts with it.
inline constexpr std::string_view kEventLogHeader = "time_s,job,event,reason,gpus,placement,work_done_s,lost_work_s\n";

class EventLog final : public RunObserver {
 public:
  // Writes the header now and a row per life event; `strings` names the jobs (trace ids).
  EventLog(std::ostream& out, const workload::StringPool& strings);

  void on_submit(const workload::JobSpec& job, engine::Time now) override;
  void on_drop(const workload::JobSpec& job, engine::Time now, const std::string& reason) override;
  void on_start(const workload::JobSpec& job, const cluster::Placement& tasks, engine::Time now, bool first) override;
  void on_life(const LifeEvent& event) override;

 private:
  struct Name {
    std::uint64_t trace_number = 0;
    workload::Label trace_id = workload::kNoLabel;
  };
  void remember(const workload::JobSpec& job);
  std::string name(workload::JobId id) const;
  std::string reason(const LifeEvent& e) const;
  void row(engine::Time now, workload::JobId job, const char* event, const std::string& reason,
           const cluster::Placement* where, double work_done_us, double lost_work_s);

  std::ostream& out_;
  const workload::StringPool& strings_;
  std::vector<Name> names_;  // by job id: a preemptor is named as jobs.csv names it
  std::unordered_map<workload::JobId, cluster::Placement> attempt_;  // tasks of each job's current attempt
  std::string line_;
};

}  // namespace schedlab::metrics
