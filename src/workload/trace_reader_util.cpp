// Shared machinery of the public-format trace readers (see trace_reader_util.h).
#include "workload/trace_reader_util.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numeric>

#include "cluster/resources.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/line_reader.h"
#include "util/notice.h"
#include "util/parse.h"
#include "util/suggest.h"

namespace schedlab::workload {

void DropCounts::add(std::string_view reason, std::uint64_t n) {
  total_ += n;
  for (auto& [r, c] : counts_)
    if (r == reason) {
      c += n;
      return;
    }
  counts_.emplace_back(std::string(reason), n);
}

std::uint64_t DropCounts::count(std::string_view reason) const {
  for (const auto& [r, c] : counts_)
    if (r == reason) return c;
  return 0;
}

std::string DropCounts::summary() const {
  std::string out;
  for (const auto& [r, c] : counts_) {
    if (!out.empty()) out += "; ";
    out += fmt::format("{} {}", c, r);
  }
  return out;
}

TraceReaderSource::TraceReaderSource(std::string path, const TraceOptions& options, Order order)
    : path_(std::move(path)), options_(options), order_(order), skipped_(options.skipped_file) {
  // The common args only: each format's reader checks every name (trace_args).
  const util::ArgReader common(options.args, util::ArgsOwner{options.args_field, "", "", ""});
  rebase_ = common.flag("rebase", true);
  if (common.flag("sort", false)) order_ = Order::sorted;
}

SkippedRowsFile::SkippedRowsFile(const std::string& path) {
  if (path.empty()) return;
  out_ = std::make_unique<util::StagedFile>(path, "--skipped", kHeader);
  out_->stream() << kHeader;
}

void SkippedRowsFile::row(long line, std::string_view reason) {
  if (out_) out_->stream() << line << ',' << util::csv_field(reason) << '\n';
}

void SkippedRowsFile::unreadable(const util::InputError& e) {
  if (out_) row(e.line(), fmt::format("unreadable ({}): {}", e.field(), e.what()));
}

void SkippedRowsFile::flush() {
  if (out_) out_->commit();
  out_.reset();
}

util::InputError no_job_left(const std::string& path,
                             const std::vector<std::pair<std::string, std::uint64_t>>& reasons) {
  if (reasons.empty()) return util::InputError(path, 0, "", "no job in this trace (no data rows)");
  std::string why;
  std::uint64_t total = 0;
  for (const auto& [reason, n] : reasons) {
    why += fmt::format("{}{}: {}", why.empty() ? "" : "; ", reason, n);
    total += n;
  }
  return util::InputError(path, 0, "", fmt::format("no job remains: all {} rows were left out ({})", total, why));
}

void TraceReaderSource::drop(std::string_view reason) {
  drops_.add(reason);
  skipped_.row(row_line(), reason);
}

void TraceReaderSource::skip_bad_row(const util::InputError& e) {
  ++bad_rows_;
  skipped_.unreadable(e);
}

std::vector<std::pair<std::string, std::uint64_t>> TraceReaderSource::skipped_by_reason() const {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  if (bad_rows_ > 0) out.emplace_back("unreadable rows (--skip-bad-rows)", bad_rows_);
  for (const auto& r : drops_.by_reason()) out.push_back(r);
  return out;
}

bool TraceReaderSource::read_checked(JobSpec& out) {
  for (;;) {
    try {
      return read_row(out);
    } catch (const EmptyTraceError&) {
      throw;
    } catch (const util::ReadError&) {
      throw;
    } catch (const util::InputError& e) {
      if (!options_.skip_bad_rows) throw;
      skip_bad_row(e);
    }
  }
}

void TraceReaderSource::fill_buffer() {
  JobSpec job;
  engine::Time prev = 0;
  while (read_checked(job)) {
    if (!buffer_.empty() && job.submit < prev) ++out_of_order_;
    prev = job.submit;
    buffer_.push_back(job);
  }
  if (out_of_order_ > 0) {
    buffer_.sort_by_submit();
    std::cerr << fmt::format("{}: {} rows out of submit order; sorted\n", path_, out_of_order_);
  }
  if (rebase_ && !buffer_.empty()) origin_ = buffer_[0].submit;
}

void TraceReaderSource::finish() {
  if (finished_) return;
  finished_ = true;
  skipped_.flush();
  // A trace from which nothing remains is a mistake (a wrong format arg, a filtered file),
  // never a successful run of zero jobs.
  if (next_id_ == 0) throw no_job_left(path_, skipped_by_reason());
  if (notices_.total() > 0 && options_.notices) options_.notices->say(fmt::format("{}: {}", path_, notices_.summary()));
}

double TraceReaderSource::fraction_done() const {
  if (finished_) return 1.0;
  if (order_ == Order::sorted)
    return buffer_.empty() ? 0.0 : static_cast<double>(served_) / static_cast<double>(buffer_.size());
  return file_fraction();
}

bool TraceReaderSource::next(JobSpec& out) {
  if (order_ == Order::sorted) {
    if (!started_) {
      started_ = true;
      fill_buffer();
    }
    if (served_ >= buffer_.size()) {
      if (!finished_) buffer_.clear();
      finish();
      return false;
    }
    out = buffer_[served_++];
  } else {
    for (;;) {
      if (!read_checked(out)) {
        finish();
        return false;
      }
      if (started_ && out.submit < last_submit_) {
        util::InputError err(path_, row_line(), "submit",
                             fmt::format("submit time {} s is before the previous job's {} s; this format is read in "
                                         "file order (set the trace arg sort=true to sort it in memory)",
                                         engine::to_seconds(out.submit), engine::to_seconds(last_submit_)));
        if (!options_.skip_bad_rows) throw err;
        skip_bad_row(err);
        continue;
      }
      break;
    }
    if (!started_) {
      started_ = true;
      if (rebase_) origin_ = out.submit;
    }
    last_submit_ = out.submit;
  }
  // Submit times are within ±100 years, so this cannot overflow; saturate all the same.
  out.submit = util::sub_time(out.submit, origin_);
  out.id = next_id_++;
  return true;
}

util::ArgReader trace_args(const TraceOptions& options, std::string_view format, std::vector<std::string> known) {
  known.push_back("rebase");
  known.push_back("sort");
  return util::ArgReader(
      options.args,
      util::ArgsOwner{options.args_field, fmt::format("{} trace argument", format), fmt::format(" ({})", format), ""},
      std::move(known));
}

engine::Time parse_seconds_field(std::string_view s, double min_s, const util::FieldContext& where) {
  return util::checked_seconds(util::parse_double_at_least(s, min_s, where), where, min_s);
}

engine::Time checked_run_time(double start, double end, const util::FieldContext& where, std::string_view from) {
  const double run = end - start;
  if (!(run <= util::kMaxInputSeconds))
    util::throw_out_of_range(where, fmt::format("{} s after {} is out of range: a run time is at most 100 years ({} s)",
                                                run, from, util::kMaxInputSeconds));
  return util::checked_duration_seconds(run, where);
}

std::uint32_t recorded_wait_of(double wait_s) {
  if (!(wait_s >= 0)) return kNoRecordedWait;
  const double rounded = std::round(wait_s);
  return rounded < static_cast<double>(kNoRecordedWait) ? static_cast<std::uint32_t>(rounded) : kNoRecordedWait;
}

Shape shape_from_hosts(const std::vector<std::uint64_t>& parts, std::uint64_t host_limit,
                       const util::FieldContext& where) {
  constexpr std::uint64_t kMaxGpus = std::numeric_limits<std::uint32_t>::max();
  std::uint64_t g = 0, total = 0, largest = 0;
  for (auto p : parts) {
    if (p == 0) continue;
    g = std::gcd(g, p);
    if (__builtin_add_overflow(total, p, &total)) total = std::numeric_limits<std::uint64_t>::max();
    largest = std::max(largest, p);
  }
  if (total == 0) return {};
  // A task count or a task size over 32 bits would wrap: a 0-task job, a division by zero.
  if (total > kMaxGpus)
    util::throw_out_of_range(where, fmt::format("{} GPUs in one job is out of range [1, {}]", total, kMaxGpus));
  if (host_limit > 0 && largest > host_limit) g = std::gcd(g, host_limit);
  Shape s;
  s.tasks = util::checked_int<std::uint32_t>(static_cast<std::int64_t>(total / g), where);
  s.gpus_per_task = util::checked_int<std::uint32_t>(static_cast<std::int64_t>(g), where);
  std::size_t hosts = 0;
  for (auto p : parts) hosts += p != 0;
  s.reshaped = s.tasks != hosts;
  return s;
}

namespace {
bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  out = v;
  return true;
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}
}  // namespace

bool parse_datetime(std::string_view s, double& seconds) {
  s = util::trim(s);
  int y, mo, d, h, mi, se;
  if (s.size() < 19 || !digits(s, 0, 4, y) || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || (s[10] != ' ' && s[10] != 'T') || !digits(s, 11, 2, h) || s[13] != ':' ||
      !digits(s, 14, 2, mi) || s[16] != ':' || !digits(s, 17, 2, se))
    return false;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return false;
  double frac = 0;
  std::string_view rest = s.substr(19);
  // A zone after the time (Acme writes 2023-03-01 00:18:22+08:00): "Z", +HH:MM, -HH:MM or
  // +HHMM; the result is UTC. Without one, the time is read as UTC.
  int offset = 0;
  if (auto z = rest.find_first_of("Z+-"); z != std::string_view::npos) {
    std::string_view zone = rest.substr(z);
    rest = rest.substr(0, z);
    if (zone != "Z") {
      int zh, zm;
      const bool colon = zone.size() == 6 && zone[3] == ':';
      if (!(colon || zone.size() == 5) || !digits(zone, 1, 2, zh) || !digits(zone, colon ? 4 : 3, 2, zm) || zh > 23 ||
          zm > 59)
        return false;
      offset = (zone[0] == '-' ? -1 : 1) * (zh * 3600 + zm * 60);
    }
  }
  if (!rest.empty()) {
    if (rest.front() != '.') return false;
    std::string tail = "0" + std::string(rest);
    if (!util::try_parse_double(tail, frac)) return false;
  }
  seconds = static_cast<double>(days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 +
                                h * 3600 + mi * 60 + se - offset) +
            frac;
  return true;
}

double parse_time(std::string_view s, const util::FieldContext& where) {
  double v;
  if (util::try_parse_double(s, v)) return v;
  if (parse_datetime(s, v)) return v;
  std::string_view t = util::trim(s);
  throw util::InputError(where.file, where.line, std::string(where.column),
                         t.empty() ? std::string("missing value")
                                   : fmt::format("'{}' is neither a date-time (YYYY-MM-DD HH:MM:SS) nor seconds", t));
}

void expect_field_count(const util::LineReader& reader, std::size_t found, std::size_t expected) {
  if (found == expected) return;
  std::string what = fmt::format("expected {} fields, found {}", expected, found);
  if (reader.last_line_unterminated()) what += " (the last line has no newline: truncated file?)";
  throw util::InputError(reader.path(), reader.line_number(), "", what);
}

bool next_data_line(util::LineReader& reader, std::string_view& line, char comment) {
  while (reader.next(line)) {
    if (line.empty() || (comment != '\0' && line.front() == comment)) continue;
    if (util::trim(line).empty()) continue;
    return true;
  }
  return false;
}

std::size_t read_named_header(util::LineReader& reader, std::span<const char* const> names, int required,
                              std::string_view what_file, std::span<int> pos) {
  std::string_view line;
  if (!next_data_line(reader, line, '\0')) throw EmptyTraceError(reader.path(), "no header row");
  const std::string hint = fmt::format(" from the header (is this {}?)", what_file);
  return util::read_csv_header(line, reader.path(), reader.line_number(),
                               util::CsvHeaderSpec{names, required, false, hint}, pos);
}

bool shape_by_nodes(JobSpec& job, std::uint32_t gpus, std::uint32_t nodes, std::uint64_t host_limit,
                    const util::FieldContext& where) {
  if (gpus == 0) {
    job.tasks = std::max<std::uint32_t>(nodes, 1);
    job.gpus_per_task = 0;
    return false;
  }
  if (nodes > 0 && gpus % nodes == 0 && (host_limit == 0 || gpus / nodes <= host_limit)) {
    job.tasks = nodes;
    job.gpus_per_task = gpus / nodes;
    return false;
  }
  const Shape s = shape_from_hosts({gpus}, host_limit, where);
  job.tasks = s.tasks;
  job.gpus_per_task = s.gpus_per_task;
  return true;
}

void set_job_cpus(JobSpec& job, double cpus, const util::FieldContext& where) {
  cluster::checked_cpu_milli(std::ceil(cpus * 1000) / 1000, where);
  job.cpu_milli = cluster::checked_cpu_milli(std::ceil(cpus * 1000 / job.tasks) / 1000, where);
  job.cpu_given = true;
}

}  // namespace schedlab::workload
