// Result files of a run: jobs.csv, timeline.csv and summary.json, and with pools
// pools-timeline.csv; byte-identical for the same scenario and seed (fixed formats, no
// wall-clock figures).
#pragma once

#include <ostream>

#include "metrics/collector.h"
#include "metrics/summary.h"
#include "util/csv.h"
#include "workload/job_spec.h"

namespace schedlab::metrics {

// jobs.csv's columns (docs/metrics.md defines each; per-task figures say so in their names).
inline constexpr const char* kJobsCsvHeader =
    "id,trace_id,user,submit_s,start_s,end_s,first_wait_s,queueing_delay_s,run_s,jct_s,tasks,gpus_per_task,"
    "gpu_milli,gpus,hosts,racks,gpu_model,placement,state,drop_reason,preemptions,failures,restarts,attained_gpu_s,"
    "lost_gpu_s,cpus_per_task,mem_gb_per_task,pool,kind";
// The column jobs.csv adds after kJobsCsvHeader's when the trace recorded some job's wait
// (Collector::has_recorded_waits); without one jobs.csv stays as it was.
inline constexpr const char* kRecordedWaitColumn = "recorded_wait_s";
// The trace row number of a job that has none (one submitted from outside, over the API):
// written as an empty field, never as this number.
inline constexpr std::uint64_t kNoTraceNumber = ~std::uint64_t{0};

void write_jobs_csv(std::ostream& out, const Collector& c, const workload::StringPool& strings);
void write_timeline_csv(std::ostream& out, const Collector& c);
// One row per timeline interval and pool (long format); only for a run with pools.
void write_pools_timeline_csv(std::ostream& out, const Collector& c);
void write_summary_json(std::ostream& out, const Summary& s, const std::string& scenario);
// The human-readable table printed after a run.
std::string format_summary_table(const Summary& s);

// A number of GPUs given in thousandths, exactly: "8", "8589934592", "0.25".
std::string gpu_milli_text(std::uint64_t milli);
// A job as jobs.csv names it: the trace's own id, else its row number in the trace; "" for a
// job with neither (submitted from outside).
std::string trace_name(workload::Label trace_id, std::uint64_t trace_number, const workload::StringPool& strings);
// Whether a Summary figure (by name) is a count, printed as an integer.
bool is_count_figure(const std::string& name);
// A Summary figure for people, in units, never in exponent notation: counts as integers,
// times (names ending in _s) in seconds or, from an hour, in hours ("12.06 h"), shares
// (utilization, *_ratio, goodput, fragmentation) in percent, other numbers with four significant
// digits; "-" for a figure without a value (kNoValue). Files keep the raw numbers.
std::string human_figure(const std::string& name, double v);

}  // namespace schedlab::metrics
