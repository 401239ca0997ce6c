// Reader of the Alibaba GPU cluster 2023 "openb" pod lists (FGD, ATC'23): one pod per row,
// with GPU shares and GPU-model constraints. Mapping documented in traces/README.md ("openb").
#pragma once

#include <memory>
#include <string>

#include "workload/trace_format.h"

namespace schedlab::workload {

// Args: rebase, sort (rows are always sorted in memory: the resampled lists are unordered).
std::unique_ptr<JobSource> open_openb_csv(const std::string& path, const TraceOptions& options);
// True for the header `name,cpu_milli,memory_mib,num_gpu,...`.
bool detect_openb_csv(const std::string& first_line, const std::string& path);

}  // namespace schedlab::workload
