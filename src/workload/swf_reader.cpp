// SWF reader: `;` header comments, then 18 whitespace-separated fields per job, -1 = unknown.
// Processors become GPUs; the requested memory per processor becomes each task's memory; the
// wait time field becomes the job's recorded wait.
#include "workload/swf_reader.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "cluster/resources.h"
#include "util/error.h"
#include "util/parse.h"
#include "workload/row_reader.h"
#include "workload/trace_reader_util.h"

namespace schedlab::workload {
namespace {

// The 18 SWF fields, 1-based in the standard; 0-based here.
enum Field { kJob, kSubmit, kWait, kRun, kAllocProcs, kAvgCpu, kUsedMem, kReqProcs, kReqTime, kReqMem,
             kStatus, kUser, kGroup, kExe, kQueue, kPartition, kPrecJob, kThink, kFieldCount };
constexpr const char* kFieldNames[kFieldCount] = {
    "job number", "submit time", "wait time", "run time", "allocated processors", "average cpu time",
    "used memory", "requested processors", "requested time", "requested memory", "status", "user id",
    "group id", "executable", "queue", "partition", "preceding job", "think time"};

constexpr std::int64_t kMaxCount = std::numeric_limits<std::uint32_t>::max();

class SwfSource final : public RowTraceSource {
 public:
  SwfSource(const std::string& path, const TraceOptions& options)
      : RowTraceSource(path, options, Order::streamed, RowSyntax{.split = RowSyntax::Split::whitespace}) {
    const util::ArgReader a = trace_args(options, "swf", {"gpus_per_processor", "gpus_per_host"});
    gpus_per_processor_ = static_cast<std::uint32_t>(a.integer("gpus_per_processor", 1, 1, UINT32_MAX));
    host_limit_ = static_cast<std::uint32_t>(a.integer("gpus_per_host", 8, 0, UINT32_MAX));
  }

 protected:
  bool read_row(JobSpec& job) override {
    while (rows_.next()) {
      saw_line_ = true;
      // Header lines start with ';', after any spaces.
      if (std::string_view t = util::trim(rows_.line()); t.front() == ';') {
        header_lines_ = true;
        read_header_comment(t);
        continue;
      }
      rows_.split();
      rows_.expect_fields(kFieldCount);
      if (parse_row(job)) return true;
    }
    if (!saw_line_) throw EmptyTraceError(rows_.path(), "no header and no jobs");
    return false;
  }

 private:
  // False for a job that the format's rules drop (counted).
  bool parse_row(JobSpec& job) {
    const auto number = static_cast<std::uint64_t>(swf_int(kJob, 0, std::numeric_limits<std::int64_t>::max()));
    const double submit_s = util::parse_double_at_least(rows_[kSubmit], -1, at(kSubmit));
    double run = util::parse_double_at_least(rows_[kRun], -1, at(kRun));
    // Processor counts land in 32 bits (-1 = unknown).
    std::int64_t procs = swf_int(kAllocProcs, -1, kMaxCount);
    std::int64_t req_procs = swf_int(kReqProcs, -1, kMaxCount);
    double req_time = util::parse_double_at_least(rows_[kReqTime], -1, at(kReqTime));
    std::int64_t status = swf_int(kStatus, -1, std::numeric_limits<std::int64_t>::max());
    std::int64_t user = swf_int(kUser, -1, std::numeric_limits<std::int64_t>::max());
    std::int64_t queue = swf_int(kQueue, -1, std::numeric_limits<std::int64_t>::max());
    // KB per processor; -1 (or 0) = not given.
    double req_mem_kb = util::parse_double_at_least(rows_[kReqMem], -1, at(kReqMem));
    // The remaining fields are not used, but must be numbers for the row to be SWF.
    // The wait the log recorded (-1 = unknown): compared with the simulated one, never replayed.
    const double wait_s = util::parse_double(rows_[kWait], at(kWait));
    for (int f : {kAvgCpu, kUsedMem, kGroup, kExe, kPartition, kPrecJob, kThink})
      util::parse_double(rows_[f], at(static_cast<Field>(f)));

    const Field procs_field = procs <= 0 ? kReqProcs : kAllocProcs;
    if (procs <= 0) procs = req_procs;  // the standard: allocated, else requested
    // -1 is "unknown" in any SWF field: a row without a submit time, a run time or a
    // processor count cannot be replayed, and is left out (counted), in this order.
    if (submit_s < 0) {
      drop("jobs with unknown submit time (-1)");
      return false;
    }
    const engine::Time submit = parse_seconds_field(rows_[kSubmit], 0, at(kSubmit));
    if (run < 0) {
      drop("jobs with unknown run time (-1)");
      return false;
    }
    if (procs <= 0) {
      drop("jobs with no processor count (0 or -1)");
      return false;
    }
    if (max_procs_ > 0 && procs > max_procs_)
      rows_.fail(kFieldNames[kAllocProcs],
                 fmt::format("{} processors is more than the header's MaxProcs ({})", procs, max_procs_));

    job = JobSpec{};
    job.trace_number = number;
    job.recorded_wait_s = recorded_wait_of(wait_s);
    job.submit = submit;
    job.duration = util::checked_duration_seconds(run, at(kRun));
    job.estimate = req_time > 0 ? util::checked_duration_seconds(req_time, at(kReqTime)) : 0;
    // Both factors fit 32 bits, so the product fits 64; as a job's GPU count it must fit 32.
    const auto tasks = util::checked_int<std::uint32_t>(procs, at(procs_field), 1);
    const std::uint64_t gpus = std::uint64_t{tasks} * gpus_per_processor_;
    if (gpus > kMaxCount)
      rows_.fail(kFieldNames[procs_field],
                 fmt::format("{} processors x gpus_per_processor {} = {} GPUs is out of range [1, {}]", tasks,
                             gpus_per_processor_, gpus, kMaxCount));
    if (host_limit_ == 0) {
      job.tasks = tasks;
      job.gpus_per_task = gpus_per_processor_;
    } else {
      Shape s = shape_from_hosts({gpus}, host_limit_, at(procs_field));
      job.tasks = s.tasks;
      job.gpus_per_task = s.gpus_per_task;
    }
    if (req_mem_kb > 0) {
      // A task holds the memory of the processors it stands for, rounded up to a MiB.
      const double task_kb = req_mem_kb * static_cast<double>(tasks) / job.tasks;
      job.mem_mib = cluster::checked_mem_mib(task_kb / (1024.0 * 1024.0), at(kReqMem));
      job.mem_given = true;
    }
    job.gang = true;
    switch (status) {
      case 1: job.status = TraceStatus::pass; break;
      case 0: job.status = TraceStatus::failed; break;
      case 5: job.status = TraceStatus::killed; break;
      default: job.status = TraceStatus::unknown; break;
    }
    if (user >= 0) job.user = strings().intern(rows_[kUser]);
    if (queue >= 0) job.pool = strings().intern(rows_[kQueue]);
    return true;
  }

  util::FieldContext at(Field f) const { return rows_.at(kFieldNames[f]); }

  // An integer field, in [lo, hi]. Logs converted by spreadsheets write 4.0 (read as 4) and
  // sometimes 4.5 where the standard says integer: rounded to the nearest (half away from
  // zero), and counted.
  std::int64_t swf_int(Field f, std::int64_t lo, std::int64_t hi) {
    double d;
    if (util::try_parse_double(rows_[f], d) && d != std::floor(d)) {
      notices_mut().add(fmt::format("fractional {} rounded to the nearest integer", kFieldNames[f]));
      return util::checked_int<std::int64_t>(std::round(d), at(f), lo, hi);
    }
    return parse_int_field<std::int64_t>(rows_[f], at(f), lo, hi);
  }

  // "; MaxProcs: 100" and "; MaxNodes: 100"; other header lines are kept as comments.
  void read_header_comment(std::string_view t) {
    t.remove_prefix(1);
    t = util::trim(t);
    auto colon = t.find(':');
    if (colon == std::string_view::npos) return;
    std::string_view key = util::trim(t.substr(0, colon)), value = util::trim(t.substr(colon + 1));
    std::int64_t v;
    if (key == "MaxProcs" && util::try_parse_int(value, v) && v > 0) max_procs_ = v;
    if (key == "MaxNodes" && util::try_parse_int(value, v) && v > 0) max_nodes_ = v;
  }

 public:
  std::string declarations() const override {
    if (!header_lines_) return "no header block: the cluster's size comes from the scenario";
    auto said = [](const char* key, std::int64_t v) {
      return v > 0 ? fmt::format("{} {}", key, v) : fmt::format("{} not declared", key);
    };
    return said("MaxProcs", max_procs_) + ", " + said("MaxNodes", max_nodes_) +
           (max_procs_ > 0 ? "" : " (the cluster's size comes from the scenario)");
  }

 private:
  bool header_lines_ = false;
  std::uint32_t gpus_per_processor_ = 1;
  std::uint32_t host_limit_ = 8;
  std::int64_t max_procs_ = 0;  // from the header; 0 = not given
  std::int64_t max_nodes_ = 0;
  bool saw_line_ = false;
};

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::unique_ptr<JobSource> open_swf(const std::string& path, const TraceOptions& options) {
  return std::make_unique<SwfSource>(path, options);
}

bool detect_swf(const std::string& first_line, const std::string& path) {
  return first_line.rfind(';', 0) == 0 || ends_with(path, ".swf") || ends_with(path, ".swf.gz");
}

}  // namespace schedlab::workload
