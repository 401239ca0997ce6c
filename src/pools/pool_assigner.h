// Which pool a job belongs to (the scenario's `pools.assign`): the first rule that matches its
// user or its trace's pool column (Philly's and Helios' virtual cluster, SWF's queue, the
// native `pool`), else that column when it names a pool, else `pools.default`. A spread rule
// sends each distinct value (or, `on: job`, each job) to one of its pools by a hash of the
// value and the seed, so that Philly's 14 virtual clusters can be dealt over 14 pools
// reproducibly. Answers are remembered per (user, column) pair unless a rule looks at the job
// itself: a million-job trace costs one hash lookup per job.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "pools/pools_config.h"
#include "workload/job_spec.h"

namespace schedlab::pools {

class PoolAssigner {
 public:
  PoolAssigner(const PoolsConfig& config, std::uint64_t seed);
  // The job's (leaf) pool. Throws InputError at the job's trace line when it has none.
  std::int32_t pool_of(const workload::JobSpec& job, const workload::StringPool& strings,
                       const std::string& trace_name);

 private:
  std::int32_t resolve(std::string_view user, std::string_view label, std::string_view job) const;

  const PoolsConfig& config_;
  std::uint64_t seed_;
  std::unordered_map<std::uint64_t, std::int32_t> memo_;  // (user label << 32 | pool label) -> pool
  bool per_job_ = false;  // a rule looks at the job itself: nothing to remember
};

}  // namespace schedlab::pools
