// What elastic jobs did (docs/metrics.md, "elastic.csv"): per job its range, its resizes, the
// wall time those restarts cost, and its GPU-time at each size it ran at. A run writes
// elastic.csv only when its workload had an elastic job, so other results stay as they were.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>

#include "metrics/observer.h"

namespace schedlab::metrics {

class ElasticObserver final : public RunObserver {
 public:
  void on_run_end(const workload::JobSpec& job, const cluster::Placement& tasks, engine::Time start, engine::Time now,
                  bool job_done) override;
  void on_life(const LifeEvent& event) override;

  bool any() const { return !jobs_.empty(); }
  // One row per elastic job, in id order: id,min_gpus,max_gpus,resizes,resize_lost_s,gpu_s_by_size
  // (the last as "size:GPU-seconds" pairs joined by ';', sizes ascending).
  void write_csv(std::ostream& out) const;

 private:
  struct Job {
    std::uint32_t min = 0, max = 0, resizes = 0;
    double resize_lost_us = 0;
    std::map<std::uint64_t, double> gpu_us;  // by size
  };
  std::map<workload::JobId, Job> jobs_;
};

}  // namespace schedlab::metrics
