// schedlab's own trace format: CSV with a header row naming the columns (any order), times
// in seconds. Documented in traces/README.md; `schedlab trace generate` writes it.
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "workload/trace_format.h"

namespace schedlab::workload {

// Required columns: id, submit_s, duration_s, tasks, gpus_per_task.
// Optional: gpu_milli, gpu_model, min_generation, user, pool, priority, gang, kind,
// estimate_s, status, ckpt_interval_s, ckpt_save_s, ckpt_restore_s, cpus, mem_gb.
std::unique_ptr<JobSource> open_native_csv(const std::string& path, const TraceOptions& options);

// Writes the header line, then one row per job (the inverse of the reader).
void write_native_header(std::ostream& out);
void write_native_row(std::ostream& out, const JobSpec& job, const StringPool& strings);

}  // namespace schedlab::workload
