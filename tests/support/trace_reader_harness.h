// Shared harness of the trace-reader tests: fixture paths, reading a whole trace into a
// vector, and capturing the first input error, for one format.
#pragma once

#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/error.h"
#include "workload/trace_format.h"
#include "workload/trace_reader_util.h"

namespace schedlab::testing {

struct ReadTrace {
  std::unique_ptr<workload::JobSource> source;
  std::vector<workload::JobSpec> jobs;
  const workload::TraceReaderSource& reader() const {
    return dynamic_cast<const workload::TraceReaderSource&>(*source);
  }
  std::string str(workload::Label l) const { return std::string(source->strings().str(l)); }
};

class TraceReaderHarness {
 public:
  explicit TraceReaderHarness(std::string format) : format_(std::move(format)) {}

  // tests/fixtures/traces/<format>/<name>
  std::string fixture(const std::string& name) const {
    return std::string(SCHEDLAB_SOURCE_DIR) + "/tests/fixtures/traces/" + format_ + "/" + name;
  }

  ReadTrace read_all(const std::string& path, bool skip = false, util::NamedArgs args = {},
                     const std::string& format = "") const {
    workload::TraceOptions options;
    options.format = format.empty() ? format_ : format;
    options.skip_bad_rows = skip;
    options.args = std::move(args);
    ReadTrace r;
    r.source = workload::open_trace(path, options);
    workload::JobSpec job;
    while (r.source->next(job)) r.jobs.push_back(job);
    return r;
  }

  // A fixture with one bad row among three: by default reading stops with
  // "<fixture path>:<error>"; with skip_bad_rows the other two jobs come out and one row is
  // counted. Returns the skipping read, for format-specific checks.
  ReadTrace check_bad_row(const std::string& file, const std::string& error) const {
    CAPTURE(file);
    CHECK(error_of(fixture(file)) == fixture(file) + ":" + error);
    auto r = read_all(fixture(file), true);
    CHECK(r.jobs.size() == 2);
    CHECK(r.source->skipped_rows() == 1);
    return r;
  }

  // The message of the InputError reading `path` raises, or "(no error)".
  std::string error_of(const std::string& path, util::NamedArgs args = {}) const {
    try {
      read_all(path, false, std::move(args));
    } catch (const util::InputError& e) {
      return e.what();
    }
    return "(no error)";
  }

 private:
  std::string format_;
};

}  // namespace schedlab::testing
