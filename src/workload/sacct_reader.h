// Reader of a site's own Slurm history: `sacct -P -o JobIDRaw,User,Account,Partition,Submit,
// Start,End,Elapsed,State,AllocTRES,ReqTRES,Timelimit` (other columns may be added or the order
// changed: columns are found by name). Mapping documented in traces/README.md ("sacct").
#pragma once

#include <memory>
#include <string>

#include "workload/trace_format.h"

namespace schedlab::workload {

// Args: gpus_per_host (default 8; shapes jobs whose GPUs do not divide by their nodes),
// cpu_jobs (run or drop).
std::unique_ptr<JobSource> open_sacct(const std::string& path, const TraceOptions& options);
// True for a header starting `JobIDRaw|` or `JobID|` (sacct -P).
bool detect_sacct(const std::string& first_line, const std::string& path);

}  // namespace schedlab::workload
