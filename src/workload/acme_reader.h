// Reader of the Acme job traces (Shanghai AI Lab, Hu et al., NSDI'24, "Characterization of
// Large Language Model Development in the Datacenter"; InternLM/AcmeTrace): trace_seren.csv
// and trace_kalos.csv, one scheduler job per row with its LLM workload type (Pretrain, SFT,
// Evaluation, Debug, Other, ...). Mapping documented in traces/README.md ("acme").
#pragma once

#include <memory>
#include <string>

#include "workload/trace_format.h"

namespace schedlab::workload {

// Args as helios: gpus_per_host (default 8), cpu_jobs (run or drop), rebase, sort.
std::unique_ptr<JobSource> open_acme_csv(const std::string& path, const TraceOptions& options);
// True for a header starting `job_id,user,node_num,gpu_num,`.
bool detect_acme_csv(const std::string& first_line, const std::string& path);

}  // namespace schedlab::workload
