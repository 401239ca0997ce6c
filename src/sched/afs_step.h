// `scheduler.policy: afs` (docs/elastic.md, "afs"): the resizing step (elastic_step.h) with
// AFS-L's counts (afs_plan.h): remaining work from the job ledger, speeds from the perf model.
#pragma once

#include "sched/afs_plan.h"
#include "sched/elastic_step.h"

namespace schedlab::sched {

class AfsStep final : public ElasticStep {
 public:
  explicit AfsStep(Scheduler& s) : ElasticStep(s, "afs") {}

 protected:
  std::vector<std::uint64_t> plan(const std::vector<ElasticJobView>& jobs, std::uint64_t capacity) override {
    std::vector<SizingJob> sizing;
    std::vector<bool> running;
    sizing.reserve(jobs.size());
    for (const auto& j : jobs) {
      sizing.push_back({j.spec->min_size(), j.spec->max_size(), j.remaining});
      running.push_back(j.held > 0);
    }
    return afs_sizes(sizing, running, capacity,
                     [&](std::size_t i, std::uint64_t n) { return speed(*jobs[i].spec, n); });
  }
};

}  // namespace schedlab::sched
