// Reader of the raw Microsoft Philly cluster_job_log (JSON, ATC'19): one job per object, with
// its scheduling attempts. Mapping documented in traces/README.md ("philly").
#pragma once

#include <memory>
#include <string>

#include "workload/trace_format.h"

namespace schedlab::workload {

// The file (plain or gzip) is a JSON array of job objects (as published) or objects one after
// another. Its bytes are read in blocks and pulled token by token (workload/json_pull.h, full
// JSON syntax checked), keeping only the fields a job needs: memory holds a block, never the
// file. A malformed object is one bad row, reported at the line of the error, after which
// reading goes on at the object's end as its brackets count it. Args: gpus_per_host
// (default 8), rebase, sort.
std::unique_ptr<JobSource> open_philly_json(const std::string& path, const TraceOptions& options);
// True for a first line starting with '[' or '{'.
bool detect_philly_json(const std::string& first_line, const std::string& path);

}  // namespace schedlab::workload
