// openb pod-list reader: `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,
// creation_time,deletion_time,scheduled_time`, columns found by name. Pods without GPUs run as
// CPU jobs (arg cpu_jobs: drop leaves them out, as schedlab did before it counted CPUs). The
// multi-GPU and GPU-sharing variants published without times (`name,cpu_milli,memory_mib,
// num_gpu,gpu_milli`) are read for the packing experiment only (TraceOptions::times_optional).
#include "workload/openb_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "cluster/resources.h"
#include "util/error.h"
#include "util/parse.h"
#include "workload/row_reader.h"
#include "workload/trace_reader_util.h"

namespace schedlab::workload {
namespace {

enum Col { kName, kNumGpu, kGpuMilli, kCreation, kDeletion, kScheduled, kGpuSpec, kQos, kPhase, kCpuMilli,
           kMemoryMib, kColCount };
const std::array<const char*, kColCount> kColNames = {"name",          "num_gpu",       "gpu_milli",
                                                      "creation_time", "deletion_time", "scheduled_time",
                                                      "gpu_spec",      "qos",           "pod_phase",
                                                      "cpu_milli",     "memory_mib"};
constexpr int kRequired = 3;  // name, num_gpu, gpu_milli; the times are required as a pair (or absent)
constexpr std::string_view kPodPrefix = "openb-pod-";

class OpenbSource final : public RowTraceSource {
 public:
  OpenbSource(const std::string& path, const TraceOptions& options)
      : RowTraceSource(path, options, Order::sorted) {
    cpu_jobs_ = trace_args(options, "openb", {"cpu_jobs"}).choice("cpu_jobs", "run", {"run", "drop"}) == "run";
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
    ncols_ = read_named_header(rows_.lines(), kColNames, kRequired, "an openb pod list", pos_);
    timeless_ = pos_[kCreation] < 0 && pos_[kDeletion] < 0;
    if (timeless_ && !options().times_optional)
      rows_.fail("creation_time",
                 "this pod list has no creation_time or deletion_time: it is made for the packing "
                 "experiment (set workload.mode: packing), not for a replay in time");
    for (Col c : {kCreation, kDeletion})
      if (!timeless_ && pos_[c] < 0)
        rows_.fail(kColNames[c],
                   "required column is missing from the header (creation_time and deletion_time go together)");
  }

  std::string_view field(Col c) const { return pos_[c] < 0 ? std::string_view() : util::trim(rows_[pos_[c]]); }
  util::FieldContext at(Col c) const { return rows_.at(kColNames[c]); }
  [[noreturn]] void fail(Col c, const std::string& what) const { rows_.fail(kColNames[c], what); }

  // False for a pod that the format drops (counted).
  bool parse_row(JobSpec& job) {
    // num_gpu lands in 32 bits: 2^32 must not wrap to 0 GPUs (a divide by zero later).
    const std::uint32_t num_gpu = parse_int_field<std::uint32_t>(field(kNumGpu), at(kNumGpu), 0);
    std::int64_t milli = field(kGpuMilli).empty() ? 1000 : util::parse_int_at_least(field(kGpuMilli), 0, at(kGpuMilli));
    double creation = 0, deletion = 0;
    if (!timeless_) {
      creation = util::parse_double_at_least(field(kCreation), 0, at(kCreation));
      deletion = util::parse_double_at_least(field(kDeletion), 0, at(kDeletion));
    }
    double start = creation;
    if (!timeless_ && !field(kScheduled).empty())
      start = util::parse_double_at_least(field(kScheduled), 0, at(kScheduled));
    // CPUs and memory per pod, when the list has them (empty = not given).
    const bool cpu_given = !field(kCpuMilli).empty(), mem_given = !field(kMemoryMib).empty();
    const std::uint32_t cpu_milli =
        cpu_given ? cluster::checked_cpu_milli_int(util::parse_int_at_least(field(kCpuMilli), 0, at(kCpuMilli)),
                                                   at(kCpuMilli))
                  : 0;
    const std::uint32_t mem_mib =
        mem_given ? cluster::checked_mem_mib_int(util::parse_int_at_least(field(kMemoryMib), 0, at(kMemoryMib)),
                                                 at(kMemoryMib))
                  : 0;
    if (num_gpu == 0) {
      if (!cpu_jobs_) {
        drop("CPU-only pods (num_gpu 0; cpu_jobs: drop)");
        return false;
      }
      if (cpu_milli == 0) {
        drop("pods that request neither GPUs nor CPUs");
        return false;
      }
      milli = 1000;  // the GPU share of a pod without GPUs is meaningless (published as 0)
    }
    if (milli == 0 || milli > 1000) fail(kGpuMilli, fmt::format("{} is not a share of one GPU (1..1000)", milli));
    if (milli < 1000 && num_gpu != 1)
      fail(kGpuMilli, fmt::format("a GPU share ({}) needs num_gpu 1, found {}", milli, num_gpu));
    if (start < creation) fail(kScheduled, fmt::format("{} is before creation_time {}", start, creation));
    if (deletion < start)
      fail(kDeletion, fmt::format("{} is before {} {}", deletion,
                                  field(kScheduled).empty() ? "creation_time" : "scheduled_time", start));
    engine::Time submit = 0, duration = 0;
    if (!timeless_) {
      submit = util::checked_seconds(creation, at(kCreation), 0);
      duration = checked_run_time(start, deletion, at(kDeletion),
                                  field(kScheduled).empty() ? "creation_time" : "scheduled_time");
      if (field(kScheduled).empty()) notices_mut().add("pods never scheduled, run for deletion - creation");
    }

    job = JobSpec{};
    // Published pod names are "openb-pod-<number>": keep the number rather than intern one
    // unique string per pod (which costs more than the job itself); other names are interned.
    std::string_view name = field(kName);
    std::int64_t number;
    if (name.rfind(kPodPrefix, 0) == 0 && util::try_parse_int(name.substr(kPodPrefix.size()), number) && number >= 0)
      job.trace_number = util::checked_int<std::uint64_t>(number, at(kName));
    else
      job.trace_id = strings().intern(name);
    job.submit = submit;
    job.duration = duration;
    // The cluster's own scheduler bound the pod at scheduled_time: its recorded wait.
    if (!timeless_ && !field(kScheduled).empty()) job.recorded_wait_s = recorded_wait_of(start - creation);
    job.tasks = 1;
    job.gpus_per_task = num_gpu;
    job.gpu_milli = util::checked_share_milli(milli, at(kGpuMilli));
    job.cpu_milli = cpu_milli;
    job.mem_mib = mem_mib;
    job.cpu_given = cpu_given;
    job.mem_given = mem_given;
    job.gang = true;
    std::string_view spec = field(kGpuSpec);
    if (!spec.empty() && spec != "nan") job.gpu_request = strings().intern(spec);
    std::string_view qos = field(kQos);
    if (qos == "LS" || qos == "Guaranteed") job.priority = 2;
    else if (qos == "Burstable") job.priority = 1;
    else if (qos == "BE" || qos.empty()) job.priority = 0;
    else fail(kQos, fmt::format("unknown '{}'; valid: LS, Guaranteed, Burstable, BE", qos));
    std::string_view phase = field(kPhase);
    if (phase == "Succeeded") job.status = TraceStatus::pass;
    else if (phase == "Failed") job.status = TraceStatus::failed;
    else job.status = TraceStatus::unknown;  // Running, Pending: still alive at the snapshot
    return true;
  }

  bool cpu_jobs_ = true;  // arg cpu_jobs: run (default) or drop the pods without GPUs
  bool timeless_ = false;  // no creation/deletion columns (a packing-only pod list)
  std::array<int, kColCount> pos_{};
  std::size_t ncols_ = 0;
};

}  // namespace

std::unique_ptr<JobSource> open_openb_csv(const std::string& path, const TraceOptions& options) {
  return std::make_unique<OpenbSource>(path, options);
}

bool detect_openb_csv(const std::string& first_line, const std::string&) {
  return first_line.rfind("name,cpu_milli,memory_mib,num_gpu", 0) == 0;
}

}  // namespace schedlab::workload
