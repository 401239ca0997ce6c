// schedlab's own trace format: CSV with a header row naming the columns (any order), times
// in seconds. Documented in traces/README.md; `schedlab trace generate` writes it.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "workload/trace_format.h"

namespace schedlab::workload {

// Required columns: id, submit_s, duration_s, tasks, gpus_per_task.
// Optional: gpu_milli, gpu_model, min_generation, user, pool, priority, gang, kind,
// estimate_s, status, ckpt_interval_s, ckpt_save_s, ckpt_restore_s, cpus, mem_gb, preemptible,
// instances, schedule, group, min_gpus, max_gpus, model.
std::unique_ptr<JobSource> open_native_csv(const std::string& path, const TraceOptions& options);

// Writes the header line, then one row per job (the inverse of the reader).
void write_native_header(std::ostream& out);
// How every native trace schedlab writes begins: an existing file is replaced only when it
// starts so (util/staging_dir.h).
inline constexpr std::string_view kNativeHeaderStart = "id,submit_s,duration_s,";
void write_native_row(std::ostream& out, const JobSpec& job, const StringPool& strings);

}  // namespace schedlab::workload
