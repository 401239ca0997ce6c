// Philly cluster_job_log reader: status, vc, jobid, user, submitted_time, attempts[] of
// {start_time, end_time, detail[] of {ip, gpus[]}}, pulled from the JSON token by token
// (workload/json_pull.h); every other key, of any JSON type, is skipped.
#include "workload/philly_reader.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "util/error.h"
#include "util/parse.h"
#include "workload/json_pull.h"
#include "workload/trace_reader_util.h"

namespace schedlab::workload {
namespace {

using Token = JsonPull::Token;

// A member read as it was found: absent, null, a string (decoded) or another JSON type. When
// a key repeats, the last one counts (as nlohmann-json, which this reader replaced, kept it).
struct PhillyScalar {
  enum class Kind : std::uint8_t { absent, null, string, other };
  Kind kind = Kind::absent;
  std::string text;
};

// A list member: absent, null, a list, or another JSON type.
enum class PhillyList : std::uint8_t { absent, null, list, other };

class PhillySource final : public TraceReaderSource {
 public:
  PhillySource(const std::string& path, const TraceOptions& options)
      : TraceReaderSource(path, options, Order::sorted), in_(path) {
    host_limit_ = static_cast<std::uint32_t>(
        trace_args(options, "philly", {"gpus_per_host"}).integer("gpus_per_host", 8, 0, UINT32_MAX));
    reshaped_ = fmt::format("jobs reshaped to equal tasks (gpus_per_host {})", host_limit_);
  }

 protected:
  long row_line() const override { return line_; }

  bool read_row(JobSpec& job) override {
    while (next_object()) {
      read_object();
      if (make_job(job)) return true;
    }
    return false;
  }

 private:
  // `key` must outlive the returned context (a literal, or a named string).
  util::FieldContext at(std::string_view key) const { return util::FieldContext{in_.path(), line_, key}; }
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw util::InputError(in_.path(), line_, key, what);
  }

  // Between job objects: a JSON array of them or objects one after another (commas and
  // blanks between them pass). True with the input at the next object's '{'; false at the end.
  bool next_object() {
    for (;;) {
      const int c = in_.peek();
      if (c < 0) {
        if (!saw_text_) throw EmptyTraceError(in_.path(), "no JSON");
        if (in_array_) {
          in_array_ = false;
          throw util::InputError(in_.path(), in_.lines_read(), "", "the job list has no closing ']' (truncated file?)");
        }
        return false;
      }
      if (c == '\n' || c == ' ' || c == '\t' || c == '\r' || c == ',') {
        in_.bump();
        continue;
      }
      saw_text_ = true;
      if (c == '{') {
        line_ = in_.line();
        return true;
      }
      in_.bump();
      if (c == '[' && !in_array_ && !ended_) {
        in_array_ = true;
        continue;
      }
      if (c == ']' && in_array_) {
        in_array_ = false;
        ended_ = true;
        continue;
      }
      const long line = in_.line();
      in_.skip_line();  // the rest of this line
      throw util::InputError(in_.path(), line, "",
                             fmt::format("expected a job object '{{', found '{}'", static_cast<char>(c)));
    }
  }

  // Reads the object at the input into the members below, checking its JSON only; the
  // checks of its content come after (make_job), in the order the DOM reader made them.
  void read_object() {
    jobid_.kind = submitted_.kind = user_.kind = vc_.kind = status_.kind = PhillyScalar::Kind::absent;
    reset_attempts(PhillyList::absent);
    try {
      in_.begin_value();
      in_.next();  // '{'
      for (Token t = in_.next(); t != Token::object_end; t = in_.next()) {
        const std::string_view key = in_.text();
        if (key == "attempts")
          read_attempts();
        else if (key == "jobid")
          read_scalar(jobid_);
        else if (key == "submitted_time")
          read_scalar(submitted_);
        else if (key == "user")
          read_scalar(user_);
        else if (key == "vc")
          read_scalar(vc_);
        else if (key == "status")
          read_scalar(status_);
        else
          skip_value();
      }
    } catch (const JsonSyntaxError& e) {
      if (!in_.recover()) {
        in_array_ = false;
        throw util::InputError(in_.path(), line_, "", "the job object starting here is not closed (truncated file?)");
      }
      const std::string where =
          e.line() == line_ ? "this job object" : fmt::format("the job object starting on line {}", line_);
      throw util::InputError(in_.path(), e.line(), "",
                             fmt::format("invalid JSON in {}: {} (column {})", where, e.what(), e.column()));
    }
  }

  void skip_value() {
    in_.next();
    in_.skip();
  }

  void read_scalar(PhillyScalar& s) {
    switch (in_.next()) {
      case Token::string:
        s.kind = PhillyScalar::Kind::string;
        s.text.assign(in_.text());
        break;
      case Token::null:
        s.kind = PhillyScalar::Kind::null;
        break;
      default:
        s.kind = PhillyScalar::Kind::other;
        in_.skip();
    }
  }

  void reset_attempts(PhillyList kind) {
    attempts_kind_ = kind;
    attempts_ = 0;
    bad_attempt_ = -1;
    detail_kind_ = PhillyList::absent;
    hosts_.clear();
    bad_host_ = -1;
    have_start_ = false;
    end_.kind = PhillyScalar::Kind::absent;
  }

  void read_attempts() {
    const Token t = in_.next();
    if (t != Token::array_begin) {
      reset_attempts(t == Token::null ? PhillyList::null : PhillyList::other);
      in_.skip();
      return;
    }
    reset_attempts(PhillyList::list);
    for (Token a = in_.next(); a != Token::array_end; a = in_.next()) {
      const long i = attempts_++;
      if (a == Token::object_begin) {
        read_attempt(i);
      } else {
        if (bad_attempt_ < 0) bad_attempt_ = i;
        in_.skip();
      }
    }
  }

  // One attempt: its start and end, and the first attempt's hosts. The first attempt with a
  // start_time (not null, "" or "None") gives the job's start; the last one gives its end.
  void read_attempt(long i) {
    start_now_.kind = end_now_.kind = PhillyScalar::Kind::absent;
    for (Token t = in_.next(); t != Token::object_end; t = in_.next()) {
      const std::string_view key = in_.text();
      if (key == "start_time")
        read_scalar(start_now_);
      else if (key == "end_time")
        read_scalar(end_now_);
      else if (key == "detail" && i == 0)
        read_detail();
      else
        skip_value();
    }
    if (!have_start_ && present(start_now_)) {
      have_start_ = true;
      start_index_ = i;
      std::swap(start_, start_now_);
    }
    std::swap(end_, end_now_);
  }

  void read_detail() {
    hosts_.clear();
    bad_host_ = -1;
    const Token t = in_.next();
    if (t != Token::array_begin) {
      detail_kind_ = t == Token::null ? PhillyList::null : PhillyList::other;
      in_.skip();
      return;
    }
    detail_kind_ = PhillyList::list;
    long h = 0;
    for (Token host = in_.next(); host != Token::array_end; host = in_.next(), ++h) {
      if (host != Token::object_begin) {
        if (bad_host_ < 0) bad_host_ = h;
        in_.skip();
        continue;
      }
      bool have_gpus = false;
      std::uint64_t gpus = 0;
      for (Token k = in_.next(); k != Token::object_end; k = in_.next()) {
        if (in_.text() != "gpus") {
          skip_value();
          continue;
        }
        have_gpus = in_.next() == Token::array_begin;
        gpus = 0;
        if (!have_gpus) {
          in_.skip();
          continue;
        }
        for (Token g = in_.next(); g != Token::array_end; g = in_.next()) {
          ++gpus;
          in_.skip();
        }
      }
      if (have_gpus)
        hosts_.push_back(gpus);
      else if (bad_host_ < 0)
        bad_host_ = h;
    }
  }

  // A time that counts: not absent, null, "" or "None".
  static bool present(const PhillyScalar& s) {
    return s.kind == PhillyScalar::Kind::other ||
           (s.kind == PhillyScalar::Kind::string && !s.text.empty() && s.text != "None");
  }

  // A time string, or false when it does not count (see present()).
  bool time_of(const PhillyScalar& s, const std::string& where, double& seconds) const {
    if (!present(s)) return false;
    if (s.kind != PhillyScalar::Kind::string) fail(where, "expected a date-time string");
    if (!parse_datetime(s.text, seconds))
      fail(where, fmt::format("'{}' is not a date-time (YYYY-MM-DD HH:MM:SS)", s.text));
    return true;
  }

  const std::string& string_of(const PhillyScalar& s, const char* key) const {
    static const std::string none;
    if (s.kind == PhillyScalar::Kind::other) fail(key, "expected a string");
    return s.kind == PhillyScalar::Kind::string ? s.text : none;
  }

  bool make_job(JobSpec& job) {
    const std::string& jobid = string_of(jobid_, "jobid");
    if (jobid.empty()) fail("jobid", "missing");
    double submit;
    if (!time_of(submitted_, "submitted_time", submit)) fail("submitted_time", "missing");

    if (attempts_kind_ == PhillyList::absent || attempts_kind_ == PhillyList::null ||
        (attempts_kind_ == PhillyList::list && attempts_ == 0)) {
      drop("jobs with no attempts");
      return false;
    }
    if (attempts_kind_ != PhillyList::list) fail("attempts", "expected a list");
    if (bad_attempt_ >= 0) fail(fmt::format("attempts[{}]", bad_attempt_), "expected an object");

    // Shape: the first attempt's GPUs per host.
    if (detail_kind_ == PhillyList::other) fail("attempts[0].detail", "expected a list");
    if (bad_host_ >= 0) fail(fmt::format("attempts[0].detail[{}].gpus", bad_host_), "expected a list of GPUs");
    Shape shape = shape_from_hosts(hosts_, host_limit_, at("attempts[0].detail"));
    if (shape.tasks == 0) {
      drop("jobs with no GPUs in their first attempt");
      return false;
    }

    // Duration: first recorded start to the last attempt's end.
    double start = 0, end = 0;
    if (!have_start_) {
      drop("jobs with no attempt start_time");
      return false;
    }
    time_of(start_, fmt::format("attempts[{}].start_time", start_index_), start);
    if (end_key_for_ != attempts_ - 1) {  // most jobs have one attempt: format it once
      end_key_for_ = attempts_ - 1;
      end_key_ = fmt::format("attempts[{}].end_time", end_key_for_);
    }
    if (!time_of(end_, end_key_, end)) {
      drop("jobs still running at the snapshot (last end_time null)");
      return false;
    }
    if (end < start) fail(end_key_, "is before the first start_time");

    job = JobSpec{};
    job.trace_id = strings().intern(jobid);
    // Date-times run to year 9999; schedlab's times stay within 100 years of 1970.
    job.submit = util::checked_seconds(submit, at("submitted_time"));
    job.duration = checked_run_time(start, end, at(end_key_), "the first start_time");
    job.recorded_wait_s = recorded_wait_of(start - submit);
    if (start < submit) notices_mut().add(kStartBeforeSubmit);
    job.tasks = shape.tasks;
    job.gpus_per_task = shape.gpus_per_task;
    job.gang = true;
    if (shape.reshaped) notices_mut().add(reshaped_);
    job.user = strings().intern(string_of(user_, "user"));
    job.pool = strings().intern(string_of(vc_, "vc"));
    const std::string& status = string_of(status_, "status");
    if (status == "Pass")
      job.status = TraceStatus::pass;
    else if (status == "Failed")
      job.status = TraceStatus::failed;
    else if (status == "Killed")
      job.status = TraceStatus::killed;
    else
      job.status = TraceStatus::unknown;
    return true;
  }

  JsonPull in_;
  std::uint64_t host_limit_ = 8;
  std::string reshaped_;  // the notice for a reshaped job
  long line_ = 0;         // the line of the job object's '{'
  // Between objects.
  bool in_array_ = false;
  bool ended_ = false;
  bool saw_text_ = false;

  // The job object read last.
  PhillyScalar jobid_, submitted_, user_, vc_, status_;
  PhillyList attempts_kind_ = PhillyList::absent;
  long attempts_ = 0;
  long bad_attempt_ = -1;  // the first attempt that is not an object
  PhillyList detail_kind_ = PhillyList::absent;
  std::vector<std::uint64_t> hosts_;  // attempts[0]: GPUs per host
  long bad_host_ = -1;                // attempts[0]: the first host without a list of GPUs
  bool have_start_ = false;
  long start_index_ = 0;
  PhillyScalar start_;                // the first attempt's start_time that counts
  PhillyScalar end_;                  // the last attempt's end_time
  PhillyScalar start_now_, end_now_;  // the attempt being read
  std::string end_key_;               // "attempts[N].end_time" for N = end_key_for_
  long end_key_for_ = -1;
};

}  // namespace

std::unique_ptr<JobSource> open_philly_json(const std::string& path, const TraceOptions& options) {
  return std::make_unique<PhillySource>(path, options);
}

bool detect_philly_json(const std::string& first_line, const std::string&) {
  std::string_view t = util::trim(first_line);
  return !t.empty() && (t.front() == '[' || t.front() == '{');
}

}  // namespace schedlab::workload
