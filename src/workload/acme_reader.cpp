// The Acme traces share the Helios logs' columns (the same group's Slurm-based scheduler),
// so the Helios reader reads them, in its Acme flavour: `type` becomes the job's type and
// Kalos' `mem_per_pod_GB` each task's memory.
#include "workload/acme_reader.h"

#include "workload/helios_reader.h"

namespace schedlab::workload {

std::unique_ptr<JobSource> open_acme_csv(const std::string& path, const TraceOptions& options) {
  return open_helios_csv(path, options, HeliosFlavor::acme);
}

bool detect_acme_csv(const std::string& first_line, const std::string&) {
  return first_line.rfind("job_id,user,node_num,gpu_num,", 0) == 0;
}

}  // namespace schedlab::workload
