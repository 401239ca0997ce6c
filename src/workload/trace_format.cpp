// The list of built-in trace formats and format detection.
#include "workload/trace_format.h"

#include <fmt/format.h>

#include "util/error.h"
#include "util/line_reader.h"
#include "util/parse.h"
#include "util/suggest.h"
#include "workload/acme_reader.h"
#include "workload/helios_reader.h"
#include "workload/native_csv.h"
#include "workload/openb_reader.h"
#include "workload/pai2020_reader.h"
#include "workload/philly_reader.h"
#include "workload/rfold_reader.h"
#include "workload/sacct_reader.h"
#include "workload/swf_reader.h"

namespace schedlab::workload {

const util::Registry<TraceFormat>& trace_formats() {
  static const util::Registry<TraceFormat> formats = [] {
    util::Registry<TraceFormat> f("trace format");
    f.add("native", "schedlab CSV: header row, times in seconds (traces/README.md)",
          {open_native_csv, [](const std::string& first, const std::string&) {
             return first.rfind("id,", 0) == 0 || first.find(",submit_s,") != std::string::npos;
           }});
    // Formats of public traces are added here, one line each.
    f.add("rfold", "RFold CSV of Philly / Lingjun (Crux) jobs: #job id,arrival time (sec),topology,shape,size,duration (sec)", {open_rfold_csv, detect_rfold_csv});
    f.add("philly", "raw Microsoft Philly cluster_job_log JSON (per-attempt records)", {open_philly_json, detect_philly_json});
    f.add("pai2020", "Alibaba PAI 2020 pai_task_table.csv (no header; args job_table, submit, fractional_gpu)", {open_pai2020_csv, detect_pai2020_csv});
    f.add("openb", "Alibaba GPU 2023 openb pod list CSV (GPU shares, GPU-model constraints)", {open_openb_csv, detect_openb_csv});
    f.add("helios", "SenseTime Helios cluster_log.csv (args gpus_per_host)", {[](const std::string& p, const TraceOptions& o) { return open_helios_csv(p, o); }, detect_helios_csv});
    f.add("acme", "Acme (Shanghai AI Lab, NSDI'24) trace_seren.csv / trace_kalos.csv, with job types (args gpus_per_host)", {open_acme_csv, detect_acme_csv});
    f.add("swf", "Standard Workload Format v2.2, plain or .gz (args gpus_per_processor, gpus_per_host)", {open_swf, detect_swf});
    f.add("sacct", "a site's Slurm history: sacct -P -o JobIDRaw,User,Account,Partition,Submit,Start,End,Elapsed,State,AllocTRES,ReqTRES,Timelimit (args gpus_per_host, cpu_jobs)", {open_sacct, detect_sacct});
    return f;
  }();
  return formats;
}

std::unique_ptr<JobSource> open_trace(const std::string& path, const TraceOptions& options) {
  const auto& formats = trace_formats();
  if (options.format != "auto") {
    if (const auto* f = formats.find(options.format)) return f->make.open(path, options);
    std::vector<std::string> names = formats.names();
    names.push_back("auto");
    throw util::InputError("", 0, options.format_field,
                           util::unknown_name_message(formats.kind(), options.format, names));
  }
  // The first non-empty line decides. A line starting with '#' that no format claims (rfold's
  // header starts with '#') is a comment, as the native reader reads it: the next line decides.
  util::LineReader reader(path);
  std::string_view line;
  long first_line = 0;
  while (reader.next(line)) {
    if (util::trim(line).empty()) continue;
    if (first_line == 0) first_line = reader.line_number();
    const std::string text(line);
    for (const auto& f : formats)
      if (f.make.detect && f.make.detect(text, path)) return f.make.open(path, options);
    if (line.front() != '#') break;
  }
  if (first_line == 0) throw util::InputError(path, 1, "", "empty trace");
  throw util::InputError(
      path, first_line, options.format_field,
      fmt::format("cannot detect the trace format from the first line; set {}", options.format_field));
}

}  // namespace schedlab::workload
