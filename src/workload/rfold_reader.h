// Reader of the RFold converted-trace CSV (philly_trace.csv, crux.csv): one row per job with
// its per-host GPU split. Mapping documented in traces/README.md ("rfold").
#pragma once

#include <memory>
#include <string>

#include "workload/trace_format.h"

namespace schedlab::workload {

// Args: gpus_per_host (default 8; 0 = no limit), rebase, sort.
std::unique_ptr<JobSource> open_rfold_csv(const std::string& path, const TraceOptions& options);
// True for the RFold header line `#job id,arrival time (sec),...`.
bool detect_rfold_csv(const std::string& first_line, const std::string& path);

}  // namespace schedlab::workload
