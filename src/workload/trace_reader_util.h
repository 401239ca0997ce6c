// What the readers of public trace formats share: a JobSource base that serves rows either
// streamed (formats whose rows are in submit order) or from a stably sorted buffer, counts
// of bad and dropped rows, format arguments, job shapes from per-host GPU counts, and
// date-time parsing.
#pragma once

#include <concepts>
#include <cstdint>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/checked.h"
#include "util/error.h"
#include "util/line_reader.h"
#include "util/named_args.h"
#include "util/parse.h"
#include "util/staging_dir.h"
#include "workload/job_buffer.h"
#include "workload/trace_format.h"

namespace schedlab::workload {

// A file with nothing to read: never skipped by --skip-bad-rows (it is not a row).
class EmptyTraceError : public util::InputError {
 public:
  EmptyTraceError(const std::string& file, const std::string& what)
      : util::InputError(file, 1, "", "empty trace: " + what) {}
};

// Rows a format leaves out by its own rules (CPU-only, never started, ...), per reason, in
// the order the reasons first occurred.
class DropCounts {
 public:
  void add(std::string_view reason, std::uint64_t n = 1);
  std::uint64_t total() const { return total_; }
  std::uint64_t count(std::string_view reason) const;
  const std::vector<std::pair<std::string, std::uint64_t>>& by_reason() const { return counts_; }
  // "1088 CPU-only pods (num_gpu 0); 3 never started"; "" when nothing was dropped.
  std::string summary() const;

 private:
  std::vector<std::pair<std::string, std::uint64_t>> counts_;
  std::uint64_t total_ = 0;
};

// The --skipped file (TraceOptions::skipped_file): a CSV row `line,reason` for each row a
// reader leaves out; does nothing when no file was asked for.
class SkippedRowsFile {
 public:
  // The file's header; --skipped replaces only a file that starts with it.
  static constexpr std::string_view kHeader = "line,reason\n";
  explicit SkippedRowsFile(const std::string& path);
  void row(long line, std::string_view reason);
  // A row --skip-bad-rows passed over: the error's own words are its reason.
  void unreadable(const util::InputError& e);
  // The trace is read to its end: the file is put in place (it appears whole or not at all).
  void flush();

 private:
  std::unique_ptr<util::StagedFile> out_;
};

// The error for a trace from which no job remains, naming the rows left out per reason.
util::InputError no_job_left(const std::string& path,
                             const std::vector<std::pair<std::string, std::uint64_t>>& reasons);

// Base of every public-format reader. A subclass implements read_row(); this class applies
// --skip-bad-rows, orders rows by submit time, re-bases time so that the first submit is 0
// (arg rebase=false keeps the trace's origin), and numbers jobs 0..n-1 in output order.
//
// Streamed mode holds one row at a time; a row whose submit time is earlier than the
// previous row's is a bad row (arg sort=true switches such a file to sorted mode). Sorted
// mode reads every row first (~64 B per job), stable-sorts by (submit, input order) and
// prints one notice line on stderr when rows were out of order.
class TraceReaderSource : public JobSource {
 public:
  enum class Order { streamed, sorted };

  bool next(JobSpec& out) override;
  StringPool& strings() override { return strings_; }
  // Bad rows skipped with --skip-bad-rows plus rows dropped by the format's rules.
  std::uint64_t skipped_rows() const override { return bad_rows_ + drops_.total(); }
  std::uint64_t bad_rows() const { return bad_rows_; }
  double fraction_done() const override;
  std::vector<std::pair<std::string, std::uint64_t>> skipped_by_reason() const override;
  const DropCounts& drops() const { return drops_; }
  // Jobs kept but changed by a documented rule (reshaped, rounded up, ...), per reason;
  // printed as one line on stderr when the stream ends.
  const DropCounts& notices() const { return notices_; }
  // Rows found out of submit order (sorted mode); 0 before the first next().
  std::uint64_t out_of_order_rows() const { return out_of_order_; }

 protected:
  TraceReaderSource(std::string path, const TraceOptions& options, Order order);

  // Fills `out` with the next job of the file (id, rebasing and order are done here) and
  // returns true, or returns false at the end of the file. Rows that the format drops are
  // counted in drops() and not returned. Throws InputError for a row that cannot be read;
  // the row must be consumed before throwing so that reading can go on after it.
  virtual bool read_row(JobSpec& out) = 0;
  // The line of the row read last, for messages (0 when the format has no lines).
  virtual long row_line() const { return 0; }
  // The share of the file read (LineReader::fraction_read), or -1 when unknown.
  virtual double file_fraction() const { return -1.0; }

  // Leaves out the row read last by the format's rules: counted under `reason` (and written
  // to the --skipped file with its line).
  void drop(std::string_view reason);
  DropCounts& notices_mut() { return notices_; }
  const std::string& path() const { return path_; }
  const TraceOptions& options() const { return options_; }

 private:
  bool read_checked(JobSpec& out);
  void skip_bad_row(const util::InputError& e);
  void fill_buffer();
  void finish();

  std::string path_;
  TraceOptions options_;
  Order order_;
  bool rebase_ = true;
  StringPool strings_;
  DropCounts drops_;
  DropCounts notices_;
  bool finished_ = false;
  std::uint64_t bad_rows_ = 0;
  std::uint64_t out_of_order_ = 0;
  JobId next_id_ = 0;
  bool started_ = false;
  engine::Time origin_ = 0;
  engine::Time last_submit_ = 0;
  JobBuffer buffer_;
  std::size_t served_ = 0;
  SkippedRowsFile skipped_;
};

// The reader of a format's arguments (TraceOptions::args), named "workload.args.NAME (format)"
// in a scenario and "--arg NAME (format)" on the command line: a name not in `known` is refused
// with a suggestion; the readers' common args (rebase, sort) are always accepted.
util::ArgReader trace_args(const TraceOptions& options, std::string_view format, std::vector<std::string> known);

// Checked fields (util/checked.h): a number outside the type it lands in, or outside sense,
// is a located error naming the limit, never a wrapped count or time.
//
// An integer field as T within [lo, hi]: below lo reads "-1 is less than 0", above hi names
// the range ("4294967296 is out of range [1, 4294967295]").
template <std::integral T>
T parse_int_field(std::string_view s, const util::FieldContext& where, T lo, T hi = std::numeric_limits<T>::max()) {
  return util::checked_int<T>(util::parse_int_at_least(s, static_cast<std::int64_t>(lo), where), where, lo, hi);
}
// A time in seconds, at least `min_s`, as microseconds within 100 years.
engine::Time parse_seconds_field(std::string_view s, double min_s, const util::FieldContext& where);
// The run time from `start` to `end` (seconds, end >= start checked by the caller) as
// microseconds: more than 100 years is an error at `where` (the end column), naming `from`.
engine::Time checked_run_time(double start, double end, const util::FieldContext& where, std::string_view from);

// A wait recorded by a trace, `wait_s` seconds, as JobSpec::recorded_wait_s keeps it: rounded
// to whole seconds; kNoRecordedWait when it is below 0 (a start before its submit contradicts
// the record: no wait is known), not a number, or beyond 32 bits of seconds (136 years).
std::uint32_t recorded_wait_of(double wait_s);
// The notice of a reader that found a recorded start before its submit.
inline constexpr std::string_view kStartBeforeSubmit =
    "jobs whose recorded start is before their submit (no recorded wait)";

// How many tasks of how many GPUs a job with these per-host GPU counts becomes; the GPU
// count is always exact and must fit 32 bits (else an InputError at `where`). Rule: g = gcd
// of the parts; when a part exceeds gpus_per_host (0 = no limit), g = gcd(g, gpus_per_host)
// so that tasks fit hosts of that size; tasks = total / g, gpus_per_task = g. Equal parts
// within a host keep one task per host.
struct Shape {
  std::uint32_t tasks = 0;
  std::uint32_t gpus_per_task = 0;
  bool reshaped = false;  // not one task per listed host
};
Shape shape_from_hosts(const std::vector<std::uint64_t>& gpus_per_host, std::uint64_t host_limit,
                       const util::FieldContext& where);

// A job of `gpus` GPUs on `nodes` nodes (0: not given) as JobSpec's tasks and GPUs per task, as
// the Slurm-like logs (Helios, Acme, sacct) give them: one task per node when the GPUs divide
// evenly and fit `host_limit` GPUs a node (0: no limit), else the shape rule on the GPU count
// alone (shape_from_hosts); no GPUs: a CPU job of one task per node (at least one). True when
// the job was shaped from its GPU count alone (the caller counts it as a notice).
bool shape_by_nodes(JobSpec& job, std::uint32_t gpus, std::uint32_t nodes, std::uint64_t host_limit,
                    const util::FieldContext& where);
// A job's CPUs in all, split evenly over its tasks (rounded up to a thousandth of a CPU); the
// job's figure is checked first, at `where`.
void set_job_cpus(JobSpec& job, double cpus, const util::FieldContext& where);

// "YYYY-MM-DD HH:MM:SS" (or 'T' between date and time, optional fractional seconds) as
// seconds since 1970-01-01 read as UTC: the traces give local times without a zone, and
// only differences matter after re-basing. False when `s` is not such a date-time.
bool parse_datetime(std::string_view s, double& seconds);
// A time column that holds either a date-time or a number of seconds (epoch or offset).
double parse_time(std::string_view s, const util::FieldContext& where);

// Throws "expected N fields, found M" (with a hint when the last line had no newline).
void expect_field_count(const util::LineReader& reader, std::size_t found, std::size_t expected);
// The reader's next line that is not empty and not a comment starting with `comment`
// ('\0' for none); false at the end.
bool next_data_line(util::LineReader& reader, std::string_view& line, char comment);

// Reads the header row of a CSV whose columns are found by name (any order, extra columns
// ignored): pos[i] becomes the index of names[i], -1 when absent, and the column count is
// returned. The first `required` names must be present, else an InputError naming the
// column and `what_file` ("a Helios cluster_log.csv"). An empty file is an EmptyTraceError.
std::size_t read_named_header(util::LineReader& reader, std::span<const char* const> names, int required,
                              std::string_view what_file, std::span<int> pos);

}  // namespace schedlab::workload
