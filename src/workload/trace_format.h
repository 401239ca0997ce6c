// The trace formats schedlab reads, by name, in one visible list. A format is a factory
// that opens a file as a JobSource; `schedlab list` prints the names with their help.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/named_args.h"
#include "util/notice.h"
#include "util/registry.h"
#include "workload/job_spec.h"

namespace schedlab::workload {

struct TraceOptions {
  std::string format = "auto";  // a registered name, or "auto" to detect from the file
  bool skip_bad_rows = false;   // count and report unreadable rows instead of stopping
  // Where to write each skipped or dropped row's line and reason as CSV (--skipped); "" = nowhere.
  std::string skipped_file;
  // Rows without submit and end times are read (workload.mode: packing, where pods arrive
  // one by one and never end): formats that can omit times (openb) then give submit 0 and
  // duration 0. Otherwise a file without times is refused.
  bool times_optional = false;
  // Format-specific settings (e.g. swf: gpus_per_processor), validated by each reader.
  util::NamedArgs args;
  // How the user named the format and the args, for messages: a scenario's keys, or the
  // command-line options of `trace stats|convert` ("--format", "--arg").
  std::string format_field = "workload.format";
  std::string args_field = "workload.args";
  // Where the reader's notices go (the run's; util/notice.h); null: they are not said.
  util::Notices* notices = nullptr;
};

// What a format is: a factory that opens a file, and a test of a file's first line.
struct TraceFormat {
  std::function<std::unique_ptr<JobSource>(const std::string& path, const TraceOptions&)> open;
  // Whether the first line of a file looks like this format (for "auto"); may be empty.
  std::function<bool(const std::string& first_line, const std::string& path)> detect;
};

// Every built-in format, in the order `schedlab list` prints them.
const util::Registry<TraceFormat>& trace_formats();

// Opens `path` in the named (or detected) format. Throws InputError for an unknown format
// (listing the valid ones), a missing file, or a file no format recognises.
std::unique_ptr<JobSource> open_trace(const std::string& path, const TraceOptions& options);

}  // namespace schedlab::workload
