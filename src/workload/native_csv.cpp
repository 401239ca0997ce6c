// Reader and writer of the native CSV trace format.
#include "workload/native_csv.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>
#include <fstream>
#include <memory>
#include <limits>
#include <optional>
#include <stdexcept>

#include "cluster/resources.h"
#include "util/checked.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/parse.h"
#include "util/suggest.h"
#include "workload/chronos_schedule.h"
#include "workload/elastic_range.h"
#include "workload/job_limit.h"
#include "workload/row_reader.h"
#include "workload/trace_reader_util.h"

namespace schedlab::workload {
namespace {

enum Col { kId, kSubmit, kDuration, kTasks, kGpusPerTask, kGpuMilli, kGpuModel, kMinGen, kUser,
           kPool, kPriority, kGang, kKind, kEstimate, kStatus, kCkptInterval, kCkptSave, kCkptRestore, kCpus,
           kMemGb, kPreemptible, kInstances, kSchedule, kGroup, kMinGpus, kMaxGpus, kModel, kColCount };
const std::array<const char*, kColCount> kColNames = {
    "id", "submit_s", "duration_s", "tasks", "gpus_per_task", "gpu_milli", "gpu_model",
    "min_generation", "user", "pool", "priority", "gang", "kind", "estimate_s", "status",
    "ckpt_interval_s", "ckpt_save_s", "ckpt_restore_s", "cpus", "mem_gb", "preemptible", "instances", "schedule", "group",
    "min_gpus", "max_gpus", "model"};
constexpr int kRequired = 5;  // the first five columns
// A job's GPUs (tasks x gpus_per_task) fit 32 bits, like every GPU count.
constexpr std::uint64_t kMaxJobGpus = std::numeric_limits<std::uint32_t>::max();

class NativeCsvSource final : public JobSource {
 public:
  NativeCsvSource(const std::string& path, const TraceOptions& options)
      : rows_(path, RowSyntax{.split = RowSyntax::Split::quoted_csv, .comment = '#', .skip_space_lines = false}),
        skip_bad_(options.skip_bad_rows), skipped_file_(options.skipped_file) {
    read_header();
  }

  // Rows in file order, with a service row's instances after it and a cron row's later
  // occurrences merged in submit order (a row first at equal instants, then schedules in the
  // order their rows came).
  bool next(JobSpec& out) override {
    for (;;) {
      if (!ready_.empty()) {
        out = ready_.front();
        ready_.pop_front();
        out.id = next_id_++;
        return true;
      }
      if (!ahead_ && !rows_done_) read_row();
      // An unbounded schedule ends with the trace: nothing after its last row.
      std::erase_if(cursors_, [&](const Cursor& c) {
        return !c.at || (rows_done_ && !c.schedule.count() && *c.at > last_submit_);
      });
      Cursor* cron = nullptr;
      for (auto& c : cursors_)
        if (!cron || *c.at < *cron->at) cron = &c;
      if (ahead_ && (!cron || ahead_->submit <= *cron->at)) {
        take_row();
        continue;
      }
      if (!cron) {
        skipped_file_.flush();
        // Nothing remains: a mistake to say so, not a run of zero jobs.
        if (next_id_ == 0) throw no_job_left(rows_.path(), skipped_by_reason());
        return false;
      }
      out = cron->job;
      out.submit = *cron->at;
      out.trace_id = strings_.intern(fmt::format("{}#{}", strings_.str(cron->job.group), cron->k));
      advance(*cron);
      out.id = next_id_++;
      return true;
    }
  }
  StringPool& strings() override { return strings_; }
  double fraction_done() const override { return rows_.fraction_read(); }
  std::uint64_t skipped_rows() const override { return skipped_; }
  std::vector<std::pair<std::string, std::uint64_t>> skipped_by_reason() const override {
    if (skipped_ == 0) return {};
    return {{"unreadable rows (--skip-bad-rows)", skipped_}};
  }

 private:
  // A cron row's schedule: occurrence k at the row's submit plus (its instant - the start).
  struct Cursor {
    JobSpec job;
    ChronosSchedule schedule;
    std::uint64_t k = 0;
    std::optional<engine::Time> at;
  };

  void read_row() {
    while (rows_.next()) {
      try {
        JobSpec job;
        parse_row(job);
        if (job.submit < last_submit_)
          rows_.fail("submit_s", "submit times must not decrease (sort the trace by submit_s)");
        last_submit_ = job.submit;
        ahead_ = job;
        ahead_instances_ = row_instances_;
        ahead_schedule_ = row_schedule_;
        return;
      } catch (const util::InputError& e) {
        if (!skip_bad_) throw;
        ++skipped_;
        skipped_file_.unreadable(e);
      }
    }
    rows_done_ = true;
  }

  void take_row() {
    JobSpec job = *ahead_;
    ahead_.reset();
    if (job.kind == JobKind::service && ahead_instances_ > 1) {
      const auto instances = ahead_instances_;
      for (std::uint32_t i = 0; i < instances; ++i) {
        ready_.push_back(job);
        ready_.back().trace_id = strings_.intern(fmt::format("{}.{}", strings_.str(job.group), i));
      }
    } else if (job.kind == JobKind::cron && ahead_schedule_) {
      Cursor c;
      c.job = job;
      c.schedule = *ahead_schedule_;
      advance(c);  // occurrence 0, at the row's submit
      if (c.at) {
        ready_.push_back(job);
        ready_.back().submit = *c.at;
        ready_.back().trace_id = strings_.intern(fmt::format("{}#0", strings_.str(job.group)));
        advance(c);
        if (c.at) cursors_.push_back(std::move(c));
      }
    } else {
      ready_.push_back(job);
    }
  }

  // Moves a cursor to its next occurrence (the first, when it has none yet).
  void advance(Cursor& c) {
    const std::uint64_t k = c.at ? c.k + 1 : 0;
    c.at.reset();
    c.k = k;
    if (auto n = c.schedule.count(); n && k >= *n) return;
    try {
      const std::int64_t since_start = c.schedule.occurrence(k) - c.schedule.start_us;
      if (since_start > engine::kTimeMax / 2 - c.job.submit) return;  // beyond any run
      c.at = c.job.submit + since_start;
    } catch (const std::overflow_error&) {
      // beyond the calendar: the schedule is over
    }
  }

  void read_header() {
    if (!rows_.next()) rows_.fail("", "empty trace: no header row");
    ncols_ = util::read_csv_header(rows_.line(), rows_.path(), rows_.line_number(),
                                   util::CsvHeaderSpec{kColNames, kRequired, true, ""}, pos_);
  }

  std::string_view field(Col c) const { return pos_[c] < 0 ? std::string_view() : rows_[pos_[c]]; }
  util::FieldContext at(Col c) const { return rows_.at(kColNames[c]); }

  void parse_row(JobSpec& job) {
    // Fields are quoted as csv_field writes them (trace convert's users and ids may hold commas).
    rows_.split();
    const std::size_t found = rows_.fields().size();
    if (found != ncols_) {
      // Name the first column that is missing (or the count, when there are too many).
      std::string field;
      if (found < ncols_)
        for (int c = 0; c < kColCount; ++c)
          if (pos_[c] == static_cast<int>(found)) field = kColNames[c];
      rows_.fail(field, fmt::format("{}expected {} fields, found {}{}", field.empty() ? "" : "missing: ", ncols_, found,
                                    rows_.lines().last_line_unterminated()
                                        ? " (the last line has no newline: truncated file?)"
                                        : ""));
    }
    job = JobSpec{};
    // Every number is checked against the type it lands in and against sense
    // (util/checked.h): a count that wrapped to 0 or a time that wrapped negative would
    // replay as a job that needs nothing or ends before it starts.
    // The line is for messages only: past 2^32 lines it saturates.
    job.line =
        static_cast<std::uint32_t>(std::min<long>(rows_.line_number(), std::numeric_limits<std::uint32_t>::max()));
    job.trace_number = parse_int_field<std::uint64_t>(field(kId), at(kId), 0);
    job.submit = parse_seconds_field(field(kSubmit), 0, at(kSubmit));
    job.duration = parse_seconds_field(field(kDuration), 0, at(kDuration));
    job.tasks = parse_int_field<std::uint32_t>(field(kTasks), at(kTasks), 1);
    job.gpus_per_task = parse_int_field<std::uint32_t>(field(kGpusPerTask), at(kGpusPerTask), 0);
    // CPUs and memory per task; empty or absent = the scenario's per-GPU default.
    if (pos_[kCpus] >= 0 && !util::trim(field(kCpus)).empty()) {
      job.cpu_milli = cluster::checked_cpu_milli(util::parse_double(util::trim(field(kCpus)), at(kCpus)), at(kCpus));
      job.cpu_given = true;
    }
    if (pos_[kMemGb] >= 0 && !util::trim(field(kMemGb)).empty()) {
      job.mem_mib = cluster::checked_mem_mib(util::parse_double(util::trim(field(kMemGb)), at(kMemGb)), at(kMemGb));
      job.mem_given = true;
    }
    if (job.gpus_per_task == 0 && job.cpu_milli == 0)
      rows_.fail("gpus_per_task", "0 GPUs and no CPUs: a job needs GPUs, or CPUs (column cpus)");
    if (job.total_gpus() > kMaxJobGpus)
      rows_.fail("gpus_per_task", fmt::format("{} tasks x {} GPUs = {} GPUs in one job is out of range [1, {}]",
                                              job.tasks, job.gpus_per_task, job.total_gpus(), kMaxJobGpus));
    if (pos_[kGpuMilli] >= 0 && !util::trim(field(kGpuMilli)).empty()) {
      auto milli = util::parse_int_at_least(field(kGpuMilli), 1, at(kGpuMilli));
      if (milli > 1000)
        rows_.fail("gpu_milli", fmt::format("{} is more than one GPU (1000); use gpus_per_task", milli));
      if (milli < 1000 && job.gpus_per_task != 1)
        rows_.fail("gpu_milli", "a GPU share needs gpus_per_task = 1");
      job.gpu_milli = util::checked_share_milli(milli, at(kGpuMilli));
    }
    if (pos_[kGpuModel] >= 0) job.gpu_request = strings_.intern(util::trim(field(kGpuModel)));
    if (pos_[kMinGen] >= 0 && !util::trim(field(kMinGen)).empty())
      job.min_generation = parse_int_field<std::int16_t>(field(kMinGen), at(kMinGen), 0);
    if (pos_[kUser] >= 0) job.user = strings_.intern(util::trim(field(kUser)));
    // The training model's name; the perf model checks it against its catalog before the run.
    if (pos_[kModel] >= 0) job.model = strings_.intern(util::trim(field(kModel)));
    if (pos_[kPool] >= 0) job.pool = strings_.intern(util::trim(field(kPool)));
    if (pos_[kPriority] >= 0 && !util::trim(field(kPriority)).empty())
      job.priority = util::checked_int<std::int32_t>(util::parse_int(field(kPriority), at(kPriority)), at(kPriority));
    if (pos_[kGang] >= 0 && !util::trim(field(kGang)).empty()) {
      auto g = util::trim(field(kGang));
      if (g == "1" || g == "true") job.gang = true;
      else if (g == "0" || g == "false") job.gang = false;
      else rows_.fail("gang", fmt::format("'{}' is not 0/1/true/false", g));
    }
    if (pos_[kPreemptible] >= 0 && !util::trim(field(kPreemptible)).empty()) {
      auto g = util::trim(field(kPreemptible));
      if (g == "1" || g == "true") job.preemptible = true;
      else if (g == "0" || g == "false") job.preemptible = false;
      else rows_.fail("preemptible", fmt::format("'{}' is not 0/1/true/false", g));
    }
    if (pos_[kKind] >= 0 && !util::trim(field(kKind)).empty()) {
      auto k = util::trim(field(kKind));
      if (k == "batch") job.kind = JobKind::batch;
      else if (k == "service") job.kind = JobKind::service;
      else if (k == "cron") job.kind = JobKind::cron;
      else
        rows_.fail("kind", util::unknown_name_message("kind", k, {"batch", "service", "cron"}));
    }
    if (pos_[kEstimate] >= 0 && !util::trim(field(kEstimate)).empty())
      job.estimate = parse_seconds_field(field(kEstimate), 0, at(kEstimate));
    if (pos_[kStatus] >= 0 && !util::trim(field(kStatus)).empty()) {
      auto s = util::trim(field(kStatus));
      if (s == "pass") job.status = TraceStatus::pass;
      else if (s == "failed") job.status = TraceStatus::failed;
      else if (s == "killed") job.status = TraceStatus::killed;
      else if (s == "unknown") job.status = TraceStatus::unknown;
      else
        rows_.fail("status", util::unknown_name_message("status", s, {"pass", "failed", "killed", "unknown"}));
    }
    // A service row stands for `instances` instances over [submit, submit + duration); a cron
    // row with a schedule for its occurrences. Both name their jobs' group by the row's id.
    std::uint32_t instances = 1;
    if (pos_[kInstances] >= 0 && !util::trim(field(kInstances)).empty()) {
      instances = parse_int_field<std::uint32_t>(field(kInstances), at(kInstances), 1);
      // Each instance is a job of the run.
      check_job_count(instances, "instances", rows_.path(), rows_.line_number(), "instances");
      if (instances > 1 && job.kind != JobKind::service)
        rows_.fail("instances", "only a row of kind service has instances");
    }
    std::optional<ChronosSchedule> schedule;
    if (pos_[kSchedule] >= 0 && !util::trim(field(kSchedule)).empty()) {
      if (job.kind != JobKind::cron)
        rows_.fail("schedule", "only a row of kind cron has a schedule");
      try {
        schedule = parse_chronos_schedule(util::trim(field(kSchedule)));
      } catch (const std::invalid_argument& e) {
        rows_.fail("schedule", e.what());
      }
      // Each occurrence is a job of the run (an unbounded one ends with the trace, and is
      // counted as the run reads it).
      if (const auto n = schedule->count())
        check_job_count(*n, "occurrences", rows_.path(), rows_.line_number(), "schedule");
    }
    if (job.kind != JobKind::batch) {
      const auto group = pos_[kGroup] >= 0 ? util::trim(field(kGroup)) : std::string_view();
      job.group = strings_.intern(group.empty() ? util::trim(field(kId)) : group);
    } else if (pos_[kGroup] >= 0 && !util::trim(field(kGroup)).empty()) {
      rows_.fail("group", "only a row of kind service or cron has a group");
    }
    row_instances_ = instances;
    row_schedule_ = std::move(schedule);
    // Checkpoint costs (workload/checkpoint.h): empty or absent = not in the trace (-1).
    job.ckpt_interval_s = ckpt_seconds(kCkptInterval);
    job.ckpt_save_s = ckpt_seconds(kCkptSave);
    job.ckpt_restore_s = ckpt_seconds(kCkptRestore);
    // An elastic job's range (workload/elastic_range.h): a cell left empty is the traced size.
    const bool min_given = pos_[kMinGpus] >= 0 && !util::trim(field(kMinGpus)).empty();
    const bool max_given = pos_[kMaxGpus] >= 0 && !util::trim(field(kMaxGpus)).empty();
    if (min_given || max_given) {
      // An empty cell is the traced size (within the 16 bits of a range: else the range is wrong).
      const auto size = static_cast<std::uint16_t>(std::min<std::uint64_t>(job.total_gpus(), kMaxElasticGpus));
      job.min_gpus = min_given ? parse_int_field<std::uint16_t>(field(kMinGpus), at(kMinGpus), 0) : size;
      job.max_gpus = max_given ? parse_int_field<std::uint16_t>(field(kMaxGpus), at(kMaxGpus), 0) : size;
      as_one_gpu_tasks(job);
      if (auto bad = range_error(job, 0)) rows_.fail(bad->field, bad->what);
    }
  }

  float ckpt_seconds(Col c) const {
    if (pos_[c] < 0 || util::trim(field(c)).empty()) return -1;
    const double s = util::parse_double(util::trim(field(c)), at(c));
    util::checked_duration_seconds(s, at(c));  // 0 to 100 years
    return static_cast<float>(s);
  }

  RowReader rows_;
  bool skip_bad_;
  StringPool strings_;
  std::array<int, kColCount> pos_{};
  std::size_t ncols_ = 0;
  JobId next_id_ = 0;
  engine::Time last_submit_ = 0;
  std::uint64_t skipped_ = 0;
  SkippedRowsFile skipped_file_;  // --skipped
  std::optional<JobSpec> ahead_;  // the next row, read but not handed out
  bool rows_done_ = false;
  std::deque<JobSpec> ready_;  // jobs handed out before anything else
  std::vector<Cursor> cursors_;
  // The last row parsed's instances and schedule, and the row ahead's.
  std::uint32_t row_instances_ = 1, ahead_instances_ = 1;
  std::optional<ChronosSchedule> row_schedule_, ahead_schedule_;
};

const char* status_name(TraceStatus s) {
  switch (s) {
    case TraceStatus::pass: return "pass";
    case TraceStatus::failed: return "failed";
    case TraceStatus::killed: return "killed";
    case TraceStatus::unknown: return "unknown";
  }
  return "unknown";
}

}  // namespace

std::unique_ptr<JobSource> open_native_csv(const std::string& path, const TraceOptions& options) {
  return std::make_unique<NativeCsvSource>(path, options);
}

void write_native_header(std::ostream& out) {
  out << "id,submit_s,duration_s,tasks,gpus_per_task,gpu_milli,gpu_model,min_generation,user,pool,"
         "priority,gang,kind,estimate_s,status,ckpt_interval_s,ckpt_save_s,ckpt_restore_s,cpus,mem_gb,preemptible,group,"
         "min_gpus,max_gpus,model\n";
}

void write_native_row(std::ostream& out, const JobSpec& j, const StringPool& s) {
  std::uint64_t id = j.trace_id != kNoLabel ? j.id : j.trace_number;
  // Checkpoint columns stay empty when the job has none (negative = not in the trace).
  auto ckpt = [](float s) { return s < 0 ? std::string() : fmt::format("{}", s); };
  // CPUs and memory stay empty when the trace did not give them (the scenario's defaults apply).
  const std::string cpus = j.cpu_given ? cluster::cpu_text(j.cpu_milli) : std::string();
  const std::string mem = j.mem_given ? cluster::mem_gb_text(j.mem_mib) : std::string();
  // An elastic range only where the trace gave one (else the cells stay empty: the traced size).
  const bool ranged = j.min_gpus != 0 || j.max_gpus != 0;
  const std::string min_gpus = ranged ? std::to_string(j.min_gpus) : std::string();
  const std::string max_gpus = ranged ? std::to_string(j.max_gpus) : std::string();
  out << fmt::format(
      "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", id, engine::seconds_text(j.submit),
      engine::seconds_text(j.duration), j.tasks, j.gpus_per_task, j.gpu_milli, util::csv_field(s.str(j.gpu_request)),
      j.min_generation, util::csv_field(s.str(j.user)), util::csv_field(s.str(j.pool)), j.priority, j.gang ? 1 : 0,
      kind_name(j.kind), engine::seconds_text(j.estimate), status_name(j.status), ckpt(j.ckpt_interval_s),
      ckpt(j.ckpt_save_s), ckpt(j.ckpt_restore_s), cpus, mem, j.preemptible ? 1 : 0, util::csv_field(s.str(j.group)), min_gpus,
      max_gpus, util::csv_field(s.str(j.model)));
}

}  // namespace schedlab::workload
