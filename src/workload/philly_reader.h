// Reader of the raw Microsoft Philly cluster_job_log (JSON, ATC'19): one job per object, with
// its scheduling attempts. Mapping documented in traces/README.md ("philly").
#pragma once

#include <memory>
#include <string>

#include "workload/trace_format.h"

namespace schedlab::workload {

// The file is a JSON array of job objects (as published) or one object per line. Objects
// are cut out of the stream one at a time and parsed alone with nlohmann-json, so memory
// holds one job's text, never the whole file. Args: gpus_per_host (default 8), rebase, sort.
std::unique_ptr<JobSource> open_philly_json(const std::string& path, const TraceOptions& options);
// True for a first line starting with '[' or '{'.
bool detect_philly_json(const std::string& first_line, const std::string& path);

}  // namespace schedlab::workload
