// sacct -P reader: '|'-separated rows under a header naming the columns. A job is a row whose
// JobIDRaw has no '.'; its steps (JOBID.batch, JOBID.extern, JOBID.0, ...) ran inside its
// allocation and are passed over. Each array task has a JobIDRaw of its own, so it is a job.
#include "workload/sacct_reader.h"

#include <fmt/format.h>

#include <array>
#include <cmath>

#include "cluster/resources.h"
#include "util/error.h"
#include "util/parse.h"
#include "util/suggest.h"
#include "util/text.h"
#include "workload/row_reader.h"
#include "workload/slurm_time.h"
#include "workload/trace_reader_util.h"

namespace schedlab::workload {
namespace {

enum Col { kJobIdRaw, kSubmit, kStart, kEnd, kState, kAllocTres, kReqTres, kUser, kAccount, kPartition,
           kElapsed, kTimelimit, kColCount };
const std::array<const char*, kColCount> kColNames = {"JobIDRaw",  "Submit",  "Start",   "End",
                                                      "State",     "AllocTRES", "ReqTRES", "User",
                                                      "Account",   "Partition", "Elapsed", "Timelimit"};
constexpr int kRequired = 6;  // JobIDRaw .. AllocTRES

// What a TRES list (cpu=4,gres/gpu=2,mem=16G,node=1, or gres/gpu:a100=2) gives.
struct Tres {
  double gpus = -1;  // -1: not in the list
  double cpus = -1;
  double nodes = -1;
  double mem_gb = -1;
};

class SacctSource final : public RowTraceSource {
 public:
  SacctSource(const std::string& path, const TraceOptions& options)
      : RowTraceSource(path, options, Order::sorted, RowSyntax{.separator = '|'}) {
    const util::ArgReader a = trace_args(options, "sacct", {"gpus_per_host", "cpu_jobs"});
    cpu_jobs_ = a.choice("cpu_jobs", "run", {"run", "drop"}) == "run";
    host_limit_ = static_cast<std::uint32_t>(a.integer("gpus_per_host", 8, 0, UINT32_MAX));
    reshaped_ = fmt::format("jobs shaped from their GPUs alone for {}-GPU hosts (node count missing or uneven)",
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
    if (!rows_.next()) throw EmptyTraceError(rows_.path(), "no header row");
    rows_.split();
    pos_.fill(-1);
    ncols_ = rows_.fields().size();
    for (std::size_t i = 0; i < ncols_; ++i)
      for (int c = 0; c < kColCount; ++c)
        if (util::trim(rows_[i]) == kColNames[c]) pos_[c] = static_cast<int>(i);
    for (int c = 0; c < kRequired; ++c)
      if (pos_[c] < 0)
        rows_.fail(kColNames[c], "required column is missing from the header (is this `sacct -P -o JobIDRaw,User,"
                                 "Account,Partition,Submit,Start,End,Elapsed,State,AllocTRES,ReqTRES,Timelimit`?)");
  }

  std::string_view field(Col c) const { return pos_[c] < 0 ? std::string_view() : util::trim(rows_[pos_[c]]); }
  util::FieldContext at(Col c) const { return rows_.at(kColNames[c]); }

  // sacct's "no time": the job has not reached that point.
  static bool no_time(std::string_view t) { return t.empty() || t == "Unknown" || t == "None"; }

  Tres read_tres(Col c) const {
    Tres t;
    std::string_view list = field(c);
    std::vector<std::string_view> items;
    util::split_fields(list, ',', items);
    for (auto item : items) {
      item = util::trim(item);
      if (item.empty()) continue;
      const auto eq = item.find('=');
      if (eq == std::string_view::npos)
        rows_.fail(kColNames[c], fmt::format("'{}' is not NAME=VALUE", util::printable(item)));
      const std::string_view name = item.substr(0, eq), value = item.substr(eq + 1);
      auto count = [&] { return util::parse_double_at_least(value, 0, at(c)); };
      if (name == "gres/gpu") {
        t.gpus = count();
      } else if (name.rfind("gres/gpu:", 0) == 0) {  // typed: gres/gpu:a100=2 (beside or instead of gres/gpu)
        if (t.gpus < 0) t.gpus = count();
      } else if (name == "cpu") {
        t.cpus = count();
      } else if (name == "node") {
        t.nodes = count();
      } else if (name == "mem") {
        t.mem_gb = memory_gb(value, c);
      }
    }
    return t;
  }

  // sacct's memory: a number with an optional unit K, M, G, T (M when none).
  double memory_gb(std::string_view v, Col c) const {
    double scale = 1.0 / 1024;  // M
    if (!v.empty() && std::string_view("KMGTP").find(v.back()) != std::string_view::npos) {
      const char unit = v.back();
      v.remove_suffix(1);
      scale = unit == 'K' ? 1.0 / (1024 * 1024) : unit == 'M' ? 1.0 / 1024 : unit == 'G' ? 1.0 : unit == 'T' ? 1024.0 : 1024.0 * 1024;
    }
    return util::parse_double_at_least(v, 0, at(c)) * scale;
  }

  bool parse_row(JobSpec& job) {
    const std::string_view id = field(kJobIdRaw);
    if (id.empty()) rows_.fail("JobIDRaw", "missing value");
    if (id.find('.') != std::string_view::npos) return false;  // a step of a job read on its own row
    const std::string_view state_full = field(kState);
    const std::string_view state = state_full.substr(0, state_full.find(' '));  // "CANCELLED by 1000"
    const double submit = parse_time(field(kSubmit), at(kSubmit));
    if (no_time(field(kStart))) {
      if (state == "CANCELLED")
        drop("jobs cancelled before they started");
      else if (state == "PENDING" || state == "REQUEUED")
        drop("jobs still pending when sacct ran");
      else
        drop(fmt::format("jobs that never started ({})", printable_state(state)));
      return false;
    }
    // A job cancelled while it waited has no allocation, and sacct gives it the cancel time as
    // its Start (and End): it never ran.
    if (state == "CANCELLED" && field(kAllocTres).empty()) {
      drop("jobs cancelled before they started");
      return false;
    }
    const double start = parse_time(field(kStart), at(kStart));
    if (no_time(field(kEnd))) {
      drop("jobs still running when sacct ran (no End)");
      return false;
    }
    const double end = parse_time(field(kEnd), at(kEnd));
    if (end < start) rows_.fail("End", fmt::format("{} is before Start {}", field(kEnd), field(kStart)));
    if (start < submit) rows_.fail("Start", fmt::format("{} is before Submit {}", field(kStart), field(kSubmit)));
    Tres tres = read_tres(kAllocTres);
    if (tres.gpus < 0 && tres.cpus < 0 && pos_[kReqTres] >= 0) tres = read_tres(kReqTres);  // an old sacct's empty AllocTRES
    const double gpus_d = std::max(0.0, tres.gpus);
    if (gpus_d != std::floor(gpus_d)) rows_.fail("AllocTRES", fmt::format("{} GPUs is not a whole number", gpus_d));
    const std::uint32_t gpus = util::checked_int<std::uint32_t>(gpus_d, at(kAllocTres), 0);
    const std::uint32_t nodes =
        tres.nodes > 0 ? util::checked_int<std::uint32_t>(std::floor(tres.nodes), at(kAllocTres), 1) : 0;
    if (gpus == 0 && !cpu_jobs_) {
      drop("CPU-only jobs (no gres/gpu; cpu_jobs: drop)");
      return false;
    }
    if (gpus == 0 && !(tres.cpus > 0)) {
      drop("jobs that hold neither GPUs nor CPUs");
      return false;
    }
    const engine::Time submit_us = util::checked_seconds(submit, at(kSubmit));
    const engine::Time duration = checked_run_time(start, end, at(kEnd), "Start");

    job = JobSpec{};
    std::int64_t number;
    if (util::try_parse_int(id, number) && number >= 0)
      job.trace_number = util::checked_int<std::uint64_t>(number, at(kJobIdRaw));
    else
      job.trace_id = strings().intern(id);  // a heterogeneous job's 123+0
    job.submit = submit_us;
    job.duration = duration;
    job.recorded_wait_s = recorded_wait_of(start - submit);
    if (shape_by_nodes(job, gpus, nodes, host_limit_, at(kAllocTres))) notices_mut().add(reshaped_);
    if (tres.cpus > 0) set_job_cpus(job, tres.cpus, at(kAllocTres));
    if (tres.mem_gb > 0) {
      job.mem_mib = cluster::checked_mem_mib(tres.mem_gb / job.tasks, at(kAllocTres));
      job.mem_given = true;
    }
    if (const auto limit = slurm_duration_seconds(field(kTimelimit)); limit && *limit > 0)
      job.estimate = util::checked_duration_seconds(static_cast<double>(*limit), at(kTimelimit));
    job.gang = true;
    job.user = strings().intern(field(kUser));
    job.pool = strings().intern(field(kAccount));
    if (!field(kPartition).empty()) job.job_type = strings().intern(field(kPartition));
    if (state == "COMPLETED")
      job.status = TraceStatus::pass;
    else if (state == "FAILED" || state == "TIMEOUT" || state == "NODE_FAIL" || state == "OUT_OF_MEMORY" ||
             state == "BOOT_FAIL" || state == "DEADLINE")
      job.status = TraceStatus::failed;
    else if (state == "CANCELLED" || state == "PREEMPTED" || state == "REVOKED")
      job.status = TraceStatus::killed;
    else
      job.status = TraceStatus::unknown;
    return true;
  }

  static std::string printable_state(std::string_view s) { return s.empty() ? std::string("no State") : util::printable(s); }

  std::uint64_t host_limit_ = 8;
  bool cpu_jobs_ = true;
  std::string reshaped_;
  std::array<int, kColCount> pos_{};
  std::size_t ncols_ = 0;
};

}  // namespace

std::unique_ptr<JobSource> open_sacct(const std::string& path, const TraceOptions& options) {
  return std::make_unique<SacctSource>(path, options);
}

bool detect_sacct(const std::string& first_line, const std::string&) {
  return first_line.rfind("JobIDRaw|", 0) == 0 || first_line.rfind("JobID|", 0) == 0;
}

}  // namespace schedlab::workload
