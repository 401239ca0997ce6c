// CPUs and memory for jobs whose trace does not give them: the scenario's per-GPU defaults
// (`resources: {cpus_per_gpu, mem_gb_per_gpu}`), applied as jobs are read, by a JobSource that
// wraps the reader. A trace column always wins; a job without GPUs gets no default CPUs.
#pragma once

#include <cstdint>
#include <memory>

#include "workload/job_spec.h"

namespace schedlab::workload {

// The defaults live here and nowhere else. They are small enough that every GPU host of the
// shipped cluster files can give each of its GPUs this much (the tightest: openb's 2-GPU P100
// nodes, 8 CPUs and 60 GB), so that a GPU job without trace columns is held back by GPUs alone.
struct ResourceDefaults {
  std::uint32_t cpu_milli_per_gpu = 4000;  // 4 CPUs per GPU
  std::uint32_t mem_mib_per_gpu = 16384;   // 16 GB per GPU
};

// Fills the CPUs and memory the trace did not give: per GPU of a task (a share of a GPU gets
// the same share, rounded up), saturating at 2^32 - 1 (such a task fits no host and is dropped).
void apply_resource_defaults(JobSpec& job, const ResourceDefaults& defaults);

// `inner`'s jobs with the defaults applied.
std::unique_ptr<JobSource> with_resource_defaults(std::unique_ptr<JobSource> inner, const ResourceDefaults& defaults);

}  // namespace schedlab::workload
