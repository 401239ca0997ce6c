// Reader of the Standard Workload Format v2.2 (Parallel Workloads Archive), plain or gzip:
// processors become GPUs by a configurable factor. Mapping documented in traces/README.md ("swf").
#pragma once

#include <memory>
#include <string>

#include "workload/trace_format.h"

namespace schedlab::workload {

// Args: gpus_per_processor (default 1), gpus_per_host (default 8; 0 = one task per
// processor), rebase, sort.
std::unique_ptr<JobSource> open_swf(const std::string& path, const TraceOptions& options);
// True for a first line that is a `;` header comment, or a *.swf / *.swf.gz path.
bool detect_swf(const std::string& first_line, const std::string& path);

}  // namespace schedlab::workload
