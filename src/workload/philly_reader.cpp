// Philly cluster_job_log reader: status, vc, jobid, user, submitted_time, attempts[] of
// {start_time, end_time, detail[] of {ip, gpus[]}}.
#include "workload/philly_reader.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/line_reader.h"
#include "util/parse.h"
#include "workload/trace_reader_util.h"

namespace schedlab::workload {
namespace {

using nlohmann::json;

// Cuts top-level objects out of a JSON array (or a stream of objects) by tracking nesting
// and strings; the text of one object at a time is kept.
class JsonObjectSplitter {
 public:
  explicit JsonObjectSplitter(const std::string& path) : reader_(path) {}

  // The next object's text and the line it starts on; false at the end.
  bool next(std::string& out, long& start_line) {
    out.clear();
    int depth = 0;
    bool in_string = false, escape = false;
    for (;;) {
      if (pos_ >= line_.size()) {
        if (have_line_ && depth > 0) out += '\n';
        if (!reader_.next(line_)) {
          have_line_ = false;
          if (depth > 0) {
            in_array_ = false;
            throw InputError(reader_.path(), start_line, "",
                             "the job object starting here is not closed (truncated file?)");
          }
          if (!saw_text_) throw EmptyTraceError(reader_.path(), "no JSON");
          if (in_array_) {
            in_array_ = false;
            throw InputError(reader_.path(), reader_.line_number(), "",
                             "the job list has no closing ']' (truncated file?)");
          }
          return false;
        }
        have_line_ = true;
        pos_ = 0;
        continue;
      }
      if (depth > 0) {
        // Inside an object: scan to its end or the end of the line, then copy the span.
        std::size_t begin = pos_;
        bool closed = false;
        while (pos_ < line_.size() && !closed) {
          char c = line_[pos_++];
          if (in_string) {
            if (escape) escape = false;
            else if (c == '\\') escape = true;
            else if (c == '"') in_string = false;
          } else if (c == '"') {
            in_string = true;
          } else if (c == '{' || c == '[') {
            ++depth;
          } else if (c == '}' || c == ']') {
            closed = --depth == 0;
          }
        }
        out.append(line_.data() + begin, pos_ - begin);
        if (closed) return true;
        continue;
      }
      char c = line_[pos_++];
      if (c == ' ' || c == '\t' || c == '\r' || c == ',') continue;
      saw_text_ = true;
      if (c == '[' && !in_array_ && !ended_) {
        in_array_ = true;
        continue;
      }
      if (c == ']' && in_array_) {
        in_array_ = false;
        ended_ = true;
        continue;
      }
      if (c != '{') {
        long line = reader_.line_number();
        pos_ = line_.size();  // skip the rest of this line
        throw InputError(reader_.path(), line, "", fmt::format("expected a job object '{{', found '{}'", c));
      }
      start_line = reader_.line_number();
      depth = 1;
      out += c;
    }
  }
  const std::string& path() const { return reader_.path(); }

 private:
  LineReader reader_;
  std::string_view line_;
  std::size_t pos_ = 0;
  bool have_line_ = false;
  bool in_array_ = false;
  bool ended_ = false;
  bool saw_text_ = false;
};

class PhillySource final : public TraceReaderSource {
 public:
  PhillySource(const std::string& path, const TraceOptions& options)
      : TraceReaderSource(path, options, Order::sorted), split_(path) {
    check_args(options, "philly", {"gpus_per_host"});
    host_limit_ = count_arg(options, "philly", "gpus_per_host", 8, 0);
    reshaped_ = fmt::format("jobs reshaped to equal tasks (gpus_per_host {})", host_limit_);
  }

 protected:
  long row_line() const override { return line_; }

  bool read_row(JobSpec& job) override {
    while (split_.next(text_, line_))
      if (parse_job(job)) return true;
    return false;
  }

 private:
  // `key` must outlive the returned context (a literal, or a named string).
  FieldContext at(std::string_view key) const { return FieldContext{split_.path(), line_, key}; }
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw InputError(split_.path(), line_, key, what);
  }

  // A time string, or nullopt-like false for null / missing / "None".
  bool time_of(const json& obj, const char* key, const std::string& where, double& seconds) const {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return false;
    if (!it->is_string()) fail(where, "expected a date-time string");
    const auto& s = it->get_ref<const std::string&>();
    if (s.empty() || s == "None") return false;
    if (!parse_datetime(s, seconds)) fail(where, fmt::format("'{}' is not a date-time (YYYY-MM-DD HH:MM:SS)", s));
    return true;
  }

  std::string string_of(const json& obj, const char* key) const {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return {};
    if (!it->is_string()) fail(key, "expected a string");
    return it->get<std::string>();
  }

  bool parse_job(JobSpec& job) {
    json j;
    try {
      j = json::parse(text_);
    } catch (const json::exception& e) {
      // parse_error for bad syntax, out_of_range for a number beyond a double (1e400): either
      // way this object cannot be read, and the message says where it starts.
      fail("", fmt::format("invalid JSON in this job object: {}", e.what()));
    }
    if (!j.is_object()) fail("", "expected a job object");
    std::string jobid = string_of(j, "jobid");
    if (jobid.empty()) fail("jobid", "missing");
    double submit;
    if (!time_of(j, "submitted_time", "submitted_time", submit)) fail("submitted_time", "missing");

    auto attempts_it = j.find("attempts");
    if (attempts_it == j.end() || attempts_it->is_null() || (attempts_it->is_array() && attempts_it->empty())) {
      drop("jobs with no attempts");
      return false;
    }
    if (!attempts_it->is_array()) fail("attempts", "expected a list");
    const json& attempts = *attempts_it;
    for (std::size_t i = 0; i < attempts.size(); ++i)
      if (!attempts[i].is_object()) fail(fmt::format("attempts[{}]", i), "expected an object");

    // Shape: the first attempt's GPUs per host.
    hosts_.clear();
    auto detail = attempts[0].find("detail");
    if (detail != attempts[0].end() && !detail->is_null()) {
      if (!detail->is_array()) fail("attempts[0].detail", "expected a list");
      for (std::size_t h = 0; h < detail->size(); ++h) {
        const json& host = (*detail)[h];
        auto gpus = host.is_object() ? host.find("gpus") : host.end();
        if (!host.is_object() || gpus == host.end() || !gpus->is_array())
          fail(fmt::format("attempts[0].detail[{}].gpus", h), "expected a list of GPUs");
        hosts_.push_back(gpus->size());
      }
    }
    Shape shape = shape_from_hosts(hosts_, host_limit_, at("attempts[0].detail"));
    if (shape.tasks == 0) {
      drop("jobs with no GPUs in their first attempt");
      return false;
    }

    // Duration: first recorded start to the last attempt's end.
    double start = 0, end = 0;
    bool have_start = false;
    for (std::size_t i = 0; i < attempts.size() && !have_start; ++i)
      have_start = time_of(attempts[i], "start_time", fmt::format("attempts[{}].start_time", i), start);
    if (!have_start) {
      drop("jobs with no attempt start_time");
      return false;
    }
    std::size_t last = attempts.size() - 1;
    if (!time_of(attempts[last], "end_time", fmt::format("attempts[{}].end_time", last), end)) {
      drop("jobs still running at the snapshot (last end_time null)");
      return false;
    }
    const std::string end_key = fmt::format("attempts[{}].end_time", last);
    if (end < start) fail(end_key, "is before the first start_time");

    job = JobSpec{};
    job.trace_id = strings().intern(jobid);
    // Date-times run to year 9999; schedlab's times stay within 100 years of 1970.
    job.submit = checked_seconds(submit, at("submitted_time"));
    job.duration = checked_run_time(start, end, at(end_key), "the first start_time");
    job.tasks = shape.tasks;
    job.gpus_per_task = shape.gpus_per_task;
    job.gang = true;
    if (shape.reshaped) notices_mut().add(reshaped_);
    job.user = strings().intern(string_of(j, "user"));
    job.pool = strings().intern(string_of(j, "vc"));
    std::string status = string_of(j, "status");
    if (status == "Pass") job.status = TraceStatus::pass;
    else if (status == "Failed") job.status = TraceStatus::failed;
    else if (status == "Killed") job.status = TraceStatus::killed;
    else job.status = TraceStatus::unknown;
    return true;
  }

  JsonObjectSplitter split_;
  std::uint64_t host_limit_ = 8;
  std::string reshaped_;  // the notice for a reshaped job
  std::string text_;
  long line_ = 0;
  std::vector<std::uint64_t> hosts_;
};

}  // namespace

std::unique_ptr<JobSource> open_philly_json(const std::string& path, const TraceOptions& options) {
  return std::make_unique<PhillySource>(path, options);
}

bool detect_philly_json(const std::string& first_line, const std::string&) {
  std::string_view t = trim(first_line);
  return !t.empty() && (t.front() == '[' || t.front() == '{');
}

}  // namespace schedlab::workload
