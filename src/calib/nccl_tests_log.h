// Reads NVIDIA nccl-tests all_reduce_perf output as printed: both table generations, rank
// prefixes ("[1,0]<stdout>:", "0: "), padding and interleaved NCCL_DEBUG / comment lines.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace schedlab::calib {

struct NcclTestsRow {
  long line = 0;  // where the row was in the log
  double bytes = 0;
  std::int64_t count = 0;
  std::string type, redop;
  double oop_time_us = 0, oop_algbw = 0, oop_busbw = 0;  // out-of-place
  double ip_time_us = 0, ip_algbw = 0, ip_busbw = 0;     // in-place
};

struct NcclTestsLog {
  std::string path;
  // Generation of the table: true since nccl-tests v2.13 (root and #wrong columns).
  bool has_root_column = false;
  int ranks = 0;  // 0 when it cannot be told
  // How `ranks` was found: "device lines", "nranks", "busbw/algbw" or "unknown".
  std::string ranks_source = "unknown";
  std::string host;          // from the first "#  Rank  0 ... on HOST device ..." line, if any
  std::string gpu;           // device name from the same line, if any
  std::string nccl_version;  // from an NCCL INFO "NCCL version X" line, if any
  std::vector<NcclTestsRow> rows;
};

// Throws InputError(file, line, ...) for a table row that does not parse, and when the log holds
// no table rows at all.
NcclTestsLog parse_nccl_tests_log(const std::string& path);
// The same from text; `name` stands for the file name in errors.
NcclTestsLog parse_nccl_tests_log_text(std::string_view text, const std::string& name);

}  // namespace schedlab::calib
