// What the summary says about services and cron entries. Services: availability (the share of
// the time some instance was wanted during which every wanted instance was up), instances
// wanted at most, restarts after failures or preemptions, failures. Cron entries: occurrences,
// those started, their start delay (from the scheduled instant: queueing plus waiting for
// parents) mean and max, those skipped (parent failed, or `overlap: skip` with the previous one
// still there), those that overlapped the previous one, and those dropped (never fitting).
// The simulation reports to it at the points where it decides these things.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/time.h"
#include "workload/job_spec.h"

namespace schedlab::metrics {

struct ServiceFigures {
  std::string name;
  double availability = 1;
  std::uint64_t instances_max = 0;
  std::uint64_t restarts = 0;
  std::uint64_t failures = 0;
};

struct CronFigures {
  std::string name;
  std::uint64_t occurrences = 0;
  std::uint64_t started = 0;
  std::uint64_t skipped = 0;
  std::uint64_t overlapping = 0;
  std::uint64_t dropped = 0;
  double delay_mean_s = 0;
  double delay_max_s = 0;
};

class LongRunningStats {
 public:
  // In list order: the summary keeps the scenario's order.
  void add_service(workload::Label group, const std::string& name);
  void add_cron(workload::Label group, const std::string& name);

  // A service's instances wanted, and up (running), change by `delta` at `now`.
  void wanted(workload::Label group, engine::Time now, int delta);
  void up(workload::Label group, engine::Time now, int delta);
  void service_restarted(workload::Label group);
  void service_failed(workload::Label group);

  void occurrence(workload::Label group, bool overlapping);
  void skipped(workload::Label group);
  void dropped(workload::Label group);
  void started(workload::Label group, engine::Time delay);

  // The run ended at `now`: the time since the last change counts.
  void finish(engine::Time now);

  std::vector<ServiceFigures> services() const;
  std::vector<CronFigures> cron() const;

 private:
  struct Service {
    ServiceFigures fig;
    std::int64_t wanted = 0, up = 0;
    engine::Time since = 0;
    double wanted_us = 0, all_up_us = 0;
  };
  struct Cron {
    CronFigures fig;
    double delay_sum_s = 0;
  };
  void advance(Service& s, engine::Time now);

  std::vector<Service> services_;
  std::vector<Cron> cron_;
  std::unordered_map<workload::Label, std::size_t> service_of_, cron_of_;
};

}  // namespace schedlab::metrics
