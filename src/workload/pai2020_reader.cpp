// PAI 2020 task-table reader: `job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,
// plan_mem,plan_gpu,gpu_type`, no header row (a header row naming job_name is skipped).
#include "workload/pai2020_reader.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <unordered_map>

#include "cluster/resources.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/parse.h"
#include "util/yaml_util.h"
#include "workload/row_reader.h"
#include "workload/trace_reader_util.h"

namespace schedlab::workload {
namespace {

enum Col { kJob, kTask, kInstNum, kStatus, kStart, kEnd, kPlanCpu, kPlanMem, kPlanGpu, kGpuType, kColCount };
constexpr const char* kColNames[kColCount] = {"job_name", "task_name", "inst_num", "status",   "start_time",
                                              "end_time", "plan_cpu",  "plan_mem", "plan_gpu", "gpu_type"};
// pai_job_table.csv: job_name,inst_id,user,status,start_time,end_time
constexpr std::size_t kJobTableCols = 6;

// plan_gpu is a percentage of one GPU: at most 2^32-1 whole GPUs.
constexpr double kMaxPlanGpu = 100.0 * std::numeric_limits<std::uint32_t>::max();

// A job of pai_job_table.csv: its user and submission (start_time, read for `submit: job`).
constexpr double kNoJobSubmit = -1;
struct JobRecord {
  Label user;
  double submit_s;
};

bool is_missing(std::string_view s) { return s.empty() || s == "nan" || s == "NaN" || s == "\\N"; }

class Pai2020Source final : public RowTraceSource {
 public:
  Pai2020Source(const std::string& path, const TraceOptions& options)
      : RowTraceSource(path, options, Order::sorted) {
    const util::ArgReader a =
        trace_args(options, "pai2020", {"job_table", "fractional_gpu", "keep_names", "cpu_jobs", "submit"});
    cpu_jobs_ = a.choice("cpu_jobs", "run", {"run", "drop"}) == "run";
    keep_names_ = a.flag("keep_names", false);
    round_up_ = a.choice("fractional_gpu", "ceil", {"ceil", "error"}) == "ceil";
    submit_at_job_ = a.choice("submit", "task", {"task", "job"}) == "job";
    if (submit_at_job_ && !a.find("job_table"))
      a.fail("submit", "job needs the job_table argument (pai_job_table.csv: its start_time is the job's submission)");
    if (a.find("job_table")) {
      // Relative to the scenario that names it, as the trace itself is.
      const std::string table = util::resolve_path(a.file(), a.text("job_table", ""));
      std::error_code ec;
      if (!std::filesystem::is_regular_file(table, ec)) a.fail("job_table", fmt::format("{}: no such file", table));
      read_job_table(table);
    }
  }

 protected:
  bool read_row(JobSpec& job) override {
    while (rows_.next()) {
      saw_line_ = true;
      if (is_header(rows_)) {
        // Columns are read by position; the header is still refused with a column given twice.
        int pos[kColCount];
        util::read_csv_header(rows_.line(), rows_.path(), 1, util::CsvHeaderSpec{kColNames, 0, false, ""}, pos);
        continue;
      }
      rows_.split();
      rows_.expect_fields(kColCount);
      if (parse_row(job)) return true;
    }
    if (!saw_line_) throw EmptyTraceError(rows_.path(), "no rows");
    return false;
  }

 private:
  // Both tables may start with a header row naming job_name.
  static bool is_header(const RowReader& rows) {
    return rows.line_number() == 1 && rows.line().rfind("job_name,", 0) == 0;
  }
  const JobRecord* find_job(std::string_view name) {
    if (jobs_.empty()) return nullptr;
    name_.assign(name);
    auto it = jobs_.find(name_);
    return it == jobs_.end() ? nullptr : &it->second;
  }
  util::FieldContext at(Col c) const { return rows_.at(kColNames[c]); }
  [[noreturn]] void fail(Col c, const std::string& what) const { rows_.fail(kColNames[c], what); }

  // The job table's start_time is the job's submission (the trace's README); it is read only
  // for `submit: job`, so a table used for users alone is not refused for its times.
  void read_job_table(const std::string& table) {
    RowReader r(table);
    while (r.next()) {
      if (is_header(r)) continue;
      r.split();
      r.expect_fields(kJobTableCols);
      JobRecord record{strings().intern(util::trim(r[2])), kNoJobSubmit};
      std::string_view start = util::trim(r[4]);
      if (submit_at_job_ && !is_missing(start)) record.submit_s = util::parse_double_at_least(start, 0, r.at("start_time"));
      jobs_.emplace(std::string(util::trim(r[0])), record);
    }
  }

  bool parse_row(JobSpec& job) {
    std::string_view plan = util::trim(rows_[kPlanGpu]);
    double plan_gpu = is_missing(plan) ? 0 : util::parse_double_at_least(plan, 0, at(kPlanGpu));
    if (plan_gpu > kMaxPlanGpu)
      fail(kPlanGpu, fmt::format("{} is out of range [0, {}] (percent of one GPU: at most {} GPUs)", plan_gpu,
                                 kMaxPlanGpu, std::numeric_limits<std::uint32_t>::max()));
    const std::uint32_t inst = parse_int_field<std::uint32_t>(rows_[kInstNum], at(kInstNum), 1);  // pandas' 2.0 is 2
    // plan_cpu is a percentage of one CPU (600 = 6 CPUs), plan_mem GB; either may be missing.
    std::string_view plan_cpu = util::trim(rows_[kPlanCpu]), plan_mem = util::trim(rows_[kPlanMem]);
    const bool cpu_given = !is_missing(plan_cpu), mem_given = !is_missing(plan_mem);
    const std::uint32_t cpu_milli =
        cpu_given
            ? cluster::checked_cpu_milli(util::parse_double_at_least(plan_cpu, 0, at(kPlanCpu)) / 100, at(kPlanCpu))
            : 0;
    const std::uint32_t mem_mib =
        mem_given ? cluster::checked_mem_mib(util::parse_double_at_least(plan_mem, 0, at(kPlanMem)), at(kPlanMem)) : 0;
    if (plan_gpu == 0 && !cpu_jobs_) {
      drop("CPU-only tasks (plan_gpu empty or 0; cpu_jobs: drop)");
      return false;
    }
    if (plan_gpu == 0 && cpu_milli == 0) {
      drop("tasks that plan neither GPUs nor CPUs");
      return false;
    }
    if (is_missing(util::trim(rows_[kStart]))) {
      drop("tasks that never started (no start_time)");
      return false;
    }
    if (is_missing(util::trim(rows_[kEnd]))) {
      drop("tasks with no end_time");
      return false;
    }
    double start = util::parse_double_at_least(rows_[kStart], 0, at(kStart));
    double end = util::parse_double_at_least(rows_[kEnd], 0, at(kEnd));
    if (end < start) fail(kEnd, fmt::format("{} is before start_time {}", end, start));
    const JobRecord* record = find_job(util::trim(rows_[kJob]));
    double submit_s = start;
    if (submit_at_job_) {
      if (record == nullptr || record->submit_s == kNoJobSubmit) {
        drop("tasks whose job has no start_time in job_table (submit: job)");
        return false;
      }
      submit_s = record->submit_s;
    }
    const engine::Time submit = util::checked_seconds(submit_s, at(kStart), 0);
    const engine::Time duration = checked_run_time(start, end, at(kEnd), "start_time");

    job = JobSpec{};
    // plan_gpu is a percentage of one GPU: a share below 100, else whole GPUs.
    double milli = plan_gpu * 10;
    if (std::fabs(milli - std::round(milli)) > 1e-6)
      fail(kPlanGpu, fmt::format("{} is finer than a thousandth of a GPU", plan_gpu));
    // plan_gpu is within (0, kMaxPlanGpu], so m is within (0, 2^32 * 1000) and whole.
    const auto m = util::checked_int<std::int64_t>(std::round(milli), at(kPlanGpu));
    if (m == 0) {
      job.gpus_per_task = 0;  // a CPU task
    } else if (m < 1000) {
      job.gpus_per_task = 1;
      job.gpu_milli = util::checked_share_milli(m, at(kPlanGpu));
    } else if (m % 1000 == 0) {
      job.gpus_per_task = util::checked_int<std::uint32_t>(m / 1000, at(kPlanGpu), 1);
    } else if (round_up_) {
      job.gpus_per_task = util::checked_int<std::uint32_t>((m + 999) / 1000, at(kPlanGpu), 1);
      notices_mut().add("tasks with a plan_gpu over 100 that is not a multiple of 100, rounded up to whole GPUs");
    } else {
      fail(kPlanGpu, fmt::format("{} is more than one GPU but not a whole number of GPUs (set the trace arg "
                                 "fractional_gpu=ceil to round up)", plan_gpu));
    }
    job.tasks = inst;
    job.cpu_milli = cpu_milli;
    job.mem_mib = mem_mib;
    job.cpu_given = cpu_given;
    job.mem_given = mem_given;
    job.gang = true;
    job.submit = submit;
    job.duration = duration;
    if (submit_at_job_) {
      job.recorded_wait_s = recorded_wait_of(start - submit_s);
      if (start < submit_s) notices_mut().add(kStartBeforeSubmit);
    }
    std::string_view job_name = util::trim(rows_[kJob]);
    // The row's line number identifies the task; 1.2 M unique "job_name/task_name" strings
    // would cost more memory than the jobs themselves, so they are kept only on request.
    job.trace_number = static_cast<std::uint64_t>(rows_.line_number());
    if (keep_names_) {
      key_.assign(job_name);
      key_ += '/';
      key_ += util::trim(rows_[kTask]);
      job.trace_id = strings().intern(key_);
    }
    if (record != nullptr) job.user = record->user;
    std::string_view type = util::trim(rows_[kGpuType]);
    if (!is_missing(type) && type != "MISC") job.gpu_request = strings().intern(type);
    std::string_view status = util::trim(rows_[kStatus]);
    if (status == "Terminated") job.status = TraceStatus::pass;
    else if (status == "Failed") job.status = TraceStatus::failed;
    else if (status == "Interrupted") job.status = TraceStatus::killed;
    else job.status = TraceStatus::unknown;
    return true;
  }

  bool round_up_ = true;
  bool cpu_jobs_ = true;  // arg cpu_jobs: run (default) or drop the tasks without GPUs
  bool keep_names_ = false;
  bool saw_line_ = false;
  bool submit_at_job_ = false;  // arg submit: job (the job table's start_time) or task (its own start)
  std::unordered_map<std::string, JobRecord> jobs_;
  std::string key_;
  std::string name_;
};

}  // namespace

std::unique_ptr<JobSource> open_pai2020_csv(const std::string& path, const TraceOptions& options) {
  return std::make_unique<Pai2020Source>(path, options);
}

bool detect_pai2020_csv(const std::string& first_line, const std::string& path) {
  auto slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  return base.rfind("pai_task_table", 0) == 0 || first_line.rfind("job_name,task_name,inst_num,", 0) == 0;
}

}  // namespace schedlab::workload
