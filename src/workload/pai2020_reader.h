// Reader of the Alibaba PAI 2020 task table (pai_task_table.csv, NSDI'22): one job per task
// row, optionally with users from pai_job_table.csv. Mapping documented in traces/README.md
// ("pai2020").
#pragma once

#include <memory>
#include <string>

#include "workload/trace_format.h"

namespace schedlab::workload {

// Args: job_table (path of pai_job_table.csv, for users), submit (task: a task is submitted at
// its own start, no recorded wait; job: at its job's start_time in job_table, the gap to the
// task's start its recorded wait), fractional_gpu (ceil | error:
// what to do with a plan_gpu over 100 that is not a multiple of 100), keep_names (intern
// "job_name/task_name" as trace_id; default false: trace_number is the row's line), rebase, sort.
std::unique_ptr<JobSource> open_pai2020_csv(const std::string& path, const TraceOptions& options);
// True for a path named pai_task_table*.csv (the published files have no header row).
bool detect_pai2020_csv(const std::string& first_line, const std::string& path);

}  // namespace schedlab::workload
