// Helios cluster_log.csv reader: `job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,
// start_time,end_time,duration,queue`, columns found by name; times are date-times or seconds.
// The Acme traces (trace_seren.csv, trace_kalos.csv) come from the same group's scheduler logs
// with the same columns plus `type` (and in Kalos `mem_per_pod_GB`), so one reader serves both.
#include "workload/helios_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "cluster/resources.h"
#include "util/error.h"
#include "util/parse.h"
#include "workload/row_reader.h"
#include "workload/trace_reader_util.h"

namespace schedlab::workload {
namespace {

enum Col { kJobId, kGpuNum, kSubmit, kStart, kEnd, kUser, kVc, kNodeNum, kState, kCpuNum, kType, kMemPerPod,
           kColCount };
const std::array<const char*, kColCount> kColNames = {"job_id",  "gpu_num", "submit_time", "start_time",
                                                      "end_time", "user",    "vc",          "node_num",
                                                      "state",   "cpu_num", "type",        "mem_per_pod_GB"};
constexpr int kRequired = 5;  // the first five

class HeliosSource final : public RowTraceSource {
 public:
  HeliosSource(const std::string& path, const TraceOptions& options, HeliosFlavor flavor)
      : RowTraceSource(path, options, Order::sorted),
        format_(flavor == HeliosFlavor::acme ? "acme" : "helios") {
    const util::ArgReader a = trace_args(options, format_, {"gpus_per_host", "cpu_jobs"});
    cpu_jobs_ = a.choice("cpu_jobs", "run", {"run", "drop"}) == "run";
    host_limit_ = static_cast<std::uint32_t>(a.integer("gpus_per_host", 8, 0, UINT32_MAX));
    reshaped_ = fmt::format(
        "jobs shaped from gpu_num alone for {}-GPU hosts (node_num missing, 0, uneven or too large per node)",
        host_limit_);
    read_header();
  }

 protected:
  bool read_row(JobSpec& job) override {
    while (rows_.next_row(ncols_))
      if (parse_row(job)) return true;
    return false;
  }

 private:
  void read_header() {
    ncols_ = read_named_header(rows_.lines(), kColNames, kRequired,
                               format_ == "acme" ? "an Acme job trace" : "a Helios cluster_log.csv", pos_);
  }

  std::string_view field(Col c) const { return pos_[c] < 0 ? std::string_view() : util::trim(rows_[pos_[c]]); }
  util::FieldContext at(Col c) const { return rows_.at(kColNames[c]); }

  bool parse_row(JobSpec& job) {
    // Counts land in 32 bits (a wrapped 0 would be a job of no GPUs or a division by zero).
    const std::uint32_t gpus = parse_int_field<std::uint32_t>(field(kGpuNum), at(kGpuNum), 0);
    const std::uint32_t nodes =
        field(kNodeNum).empty() ? 0 : parse_int_field<std::uint32_t>(field(kNodeNum), at(kNodeNum), 0);
    double submit = parse_time(field(kSubmit), at(kSubmit));
    // cpu_num: the job's CPUs in all (split evenly over its tasks); empty or absent = not given.
    const bool cpu_given = !field(kCpuNum).empty();
    const double cpus = cpu_given ? util::parse_double_at_least(field(kCpuNum), 0, at(kCpuNum)) : 0;
    if (gpus == 0 && !cpu_jobs_) {
      drop("CPU-only jobs (gpu_num 0; cpu_jobs: drop)");
      return false;
    }
    if (gpus == 0 && !(cpus > 0)) {
      drop("jobs that request neither GPUs nor CPUs");
      return false;
    }
    if (field(kStart).empty()) {
      drop("jobs that never started (no start_time)");
      return false;
    }
    if (field(kEnd).empty()) {
      drop("jobs with no end_time");
      return false;
    }
    double start = parse_time(field(kStart), at(kStart));
    double end = parse_time(field(kEnd), at(kEnd));
    if (end < start)
      rows_.fail("end_time", fmt::format("{} is before start_time {}", field(kEnd), field(kStart)));
    // Epoch seconds and date-times alike must lie within 100 years of 1970 (1870..2069): far
    // beyond, the microsecond clock and the re-based timeline would overflow.
    const engine::Time submit_us = util::checked_seconds(submit, at(kSubmit));
    const engine::Time duration = checked_run_time(start, end, at(kEnd), "start_time");

    job = JobSpec{};
    std::int64_t number;
    if (util::try_parse_int(field(kJobId), number) && number >= 0)
      job.trace_number = util::checked_int<std::uint64_t>(number, at(kJobId));
    else
      job.trace_id = strings().intern(field(kJobId));
    job.submit = submit_us;
    job.duration = duration;
    job.recorded_wait_s = recorded_wait_of(start - submit);
    if (start < submit) notices_mut().add(kStartBeforeSubmit);
    const bool reshaped = shape_by_nodes(job, gpus, nodes, host_limit_, at(kGpuNum));
    if (reshaped) notices_mut().add(reshaped_);
    // Kalos: memory per pod, a pod per node; a task is a node's share of the job.
    const bool per_node_fits = gpus == 0 ? nodes > 0 : !reshaped;
    if (!field(kMemPerPod).empty() && per_node_fits) {
      job.mem_mib =
          cluster::checked_mem_mib(util::parse_double_at_least(field(kMemPerPod), 0, at(kMemPerPod)), at(kMemPerPod));
      job.mem_given = true;
    }
    if (!field(kType).empty()) job.job_type = strings().intern(field(kType));
    if (cpu_given) set_job_cpus(job, cpus, at(kCpuNum));
    job.gang = true;
    job.user = strings().intern(field(kUser));
    job.pool = strings().intern(field(kVc));
    std::string_view state = field(kState);
    if (state == "COMPLETED") job.status = TraceStatus::pass;
    else if (state == "FAILED" || state == "TIMEOUT" || state == "NODE_FAIL") job.status = TraceStatus::failed;
    else if (state == "CANCELLED") job.status = TraceStatus::killed;
    else job.status = TraceStatus::unknown;
    return true;
  }

  std::string format_;  // "helios" or "acme", for messages
  std::uint64_t host_limit_ = 8;
  bool cpu_jobs_ = true;  // arg cpu_jobs: run (default) or drop the jobs without GPUs
  std::string reshaped_;  // the notice for a job shaped from gpu_num alone
  std::array<int, kColCount> pos_{};
  std::size_t ncols_ = 0;
};

}  // namespace

std::unique_ptr<JobSource> open_helios_csv(const std::string& path, const TraceOptions& options,
                                           HeliosFlavor flavor) {
  return std::make_unique<HeliosSource>(path, options, flavor);
}

bool detect_helios_csv(const std::string& first_line, const std::string&) {
  return first_line.rfind("job_id,user,vc,", 0) == 0;
}

}  // namespace schedlab::workload
