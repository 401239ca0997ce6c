// What the summary says about services and cron entries. Services: availability (the share of
// the time some instance was wanted during which every wanted instance was up), instances
// wanted at most, restarts after failures or preemptions, failures. Cron entries: occurrences,
// those started, their start delay (from the scheduled instant: queueing plus waiting for
// parents) mean and max, those skipped (parent failed, or `overlap: skip` with the previous one
// still there), those that overlapped the previous one, and those dropped (never fitting).
// Entries are numbered in the order they are added; metrics/long_running_observer.h feeds it
// from the run's events.
#pragma once

#include <cstdint>
#include <cstddef>
#include <string>
#include <vector>

#include "engine/time.h"

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
  // In list order: the summary keeps the scenario's order. Each returns the entry's number,
  // which the calls below take.
  std::size_t add_service(const std::string& name);
  std::size_t add_cron(const std::string& name);

  // A service's instances wanted, and up (running), change by `delta` at `now`.
  void wanted(std::size_t service, engine::Time now, int delta);
  void up(std::size_t service, engine::Time now, int delta);
  void service_restarted(std::size_t service);
  void service_failed(std::size_t service);

  void occurrence(std::size_t cron, bool overlapping);
  void skipped(std::size_t cron);
  void dropped(std::size_t cron);
  void started(std::size_t cron, engine::Time delay);

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
};

}  // namespace schedlab::metrics
