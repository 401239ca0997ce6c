// RFold CSV reader: `#job id,arrival time (sec),topology,shape,size,duration (sec)`.
#include "workload/rfold_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "util/csv.h"
#include "util/error.h"
#include "util/parse.h"
#include "workload/row_reader.h"
#include "workload/trace_reader_util.h"

namespace schedlab::workload {
namespace {

constexpr std::string_view kHeaderStart = "#job id,arrival time";
enum Col { kId, kArrival, kTopology, kShape, kSize, kDuration, kColCount };
constexpr const char* kColNames[kColCount] = {"job id", "arrival time (sec)", "topology",
                                              "shape", "size", "duration (sec)"};

class RfoldSource final : public RowTraceSource {
 public:
  RfoldSource(const std::string& path, const TraceOptions& options)
      : RowTraceSource(path, options, Order::streamed, RowSyntax{.comment = '#'}) {
    host_limit_ = static_cast<std::uint32_t>(
        trace_args(options, "rfold", {"gpus_per_host"}).integer("gpus_per_host", 8, 0, UINT32_MAX));
    reshaped_ = fmt::format("jobs reshaped to equal tasks (gpus_per_host {})", host_limit_);
    // The header starts with the comment sign that later lines use: read as a line, not a row.
    std::string_view line;
    if (!next_data_line(rows_.lines(), line, '\0')) throw EmptyTraceError(rows_.path(), "no header row");
    if (line.rfind(kHeaderStart, 0) != 0)
      rows_.fail("", fmt::format("expected the header '{},...', found '{}'", kHeaderStart, line.substr(0, 60)));
    // Columns are read by position; the header is still refused with a column given twice.
    int pos[kColCount];
    util::read_csv_header(line.substr(1), rows_.path(), rows_.line_number(),
                          util::CsvHeaderSpec{kColNames, 0, false, ""}, pos);
  }

 protected:
  bool read_row(JobSpec& job) override {
    if (!rows_.next_row(kColCount)) return false;
    job = JobSpec{};
    job.trace_number = parse_int_field<std::uint64_t>(rows_[kId], at(kId), 0);
    job.submit = parse_seconds_field(rows_[kArrival], 0, at(kArrival));
    job.duration = parse_seconds_field(rows_[kDuration], 0, at(kDuration));
    // A size below 1 (0.46) is a share of one GPU, as openb's gpu_milli: in thousandths,
    // rounded to the nearest (at least 1), one task of one shared GPU.
    if (double share; util::try_parse_double(rows_[kSize], share) && share > 0 && share < 1) {
      job.tasks = 1;
      job.gpus_per_task = 1;
      job.gpu_milli = util::checked_share_milli(std::max<std::int64_t>(1, std::llround(share * 1000)), at(kSize));
      job.gang = true;
      notices_mut().add("jobs with a size below 1, read as a share of one GPU (in thousandths)");
      return true;
    }
    // GPU counts fit 32 bits, so their sum over a line's parts cannot overflow.
    auto size = parse_int_field<std::uint32_t>(rows_[kSize], at(kSize), 1);

    util::split_fields(util::trim(rows_[kShape]), '+', parts_);
    hosts_.clear();
    std::uint64_t sum = 0;
    for (auto p : parts_) {
      auto n = parse_int_field<std::uint32_t>(p, at(kShape), 1);
      hosts_.push_back(n);
      sum += n;
    }
    if (sum != size)
      rows_.fail(kColNames[kSize],
                 fmt::format("{} is not the GPU count of shape '{}' ({})", size, util::trim(rows_[kShape]), sum));
    Shape shape = shape_from_hosts(hosts_, host_limit_, at(kShape));
    if (shape.reshaped) notices_mut().add(reshaped_);
    job.tasks = shape.tasks;
    job.gpus_per_task = shape.gpus_per_task;
    job.gang = true;
    return true;
  }

 private:
  util::FieldContext at(Col c) const { return rows_.at(kColNames[c]); }

  std::uint64_t host_limit_ = 8;
  std::string reshaped_;  // the notice for a reshaped job
  std::vector<std::string_view> parts_;
  std::vector<std::uint64_t> hosts_;
};

}  // namespace

std::unique_ptr<JobSource> open_rfold_csv(const std::string& path, const TraceOptions& options) {
  return std::make_unique<RfoldSource>(path, options);
}

bool detect_rfold_csv(const std::string& first_line, const std::string&) {
  return first_line.rfind(kHeaderStart, 0) == 0;
}

}  // namespace schedlab::workload
