// Reader of SenseTime Helios cluster logs (cluster_log.csv, SC'21): one Slurm job per row.
// Mapping documented in traces/README.md ("helios").
#pragma once

#include <memory>
#include <string>

#include "workload/trace_format.h"

namespace schedlab::workload {

// Helios proper, or the Acme traces (workload/acme_reader.h) that share its columns.
enum class HeliosFlavor { helios, acme };

// Args: gpus_per_host (default 8; shapes jobs whose gpu_num does not divide by node_num),
// cpu_jobs (run or drop), rebase, sort (rows are always sorted in memory).
std::unique_ptr<JobSource> open_helios_csv(const std::string& path, const TraceOptions& options,
                                           HeliosFlavor flavor = HeliosFlavor::helios);
// True for a header starting `job_id,user,vc,`.
bool detect_helios_csv(const std::string& first_line, const std::string& path);

}  // namespace schedlab::workload
