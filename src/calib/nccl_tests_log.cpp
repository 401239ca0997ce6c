// all_reduce_perf log parsing: a line at a time, skipping what is not the table, strict on
// what is.
#include "calib/nccl_tests_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "perf/calibration_profile.h"
#include "util/checked.h"
#include "util/error.h"
#include "util/line_reader.h"
#include "util/parse.h"

namespace schedlab::calib {
namespace {

// Removes an Open MPI tag ("[1,0]<stdout>:") or an srun label ("0: ", " 12: ").
std::string_view strip_rank_prefix(std::string_view line) {
  if (!line.empty() && line.front() == '[') {
    std::size_t tag = line.find("]<std");
    if (tag != std::string_view::npos) {
      std::size_t colon = line.find(':', tag);
      if (colon != std::string_view::npos) return line.substr(colon + 1);
    }
    return line;
  }
  std::size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  std::size_t d = i;
  while (d < line.size() && line[d] >= '0' && line[d] <= '9') ++d;
  if (d > i && d < line.size() && line[d] == ':') return line.substr(d + 1);
  return line;
}

class Parser {
 public:
  explicit Parser(std::string name) { log_.path = std::move(name); }

  void feed(std::string_view raw, long line_no) {
    std::string_view body = util::trim(strip_rank_prefix(raw));
    if (body.empty()) return;
    util::split_whitespace(body, tok_);
    if (body.front() == '#') {
      comment(body.substr(1), line_no);
      return;
    }
    if (body.find("NCCL INFO") != std::string_view::npos || body.find("NCCL WARN") != std::string_view::npos) {
      nccl_line(line_no);
      return;
    }
    std::int64_t first;
    if (tok_.empty() || !util::try_parse_int(tok_[0], first)) return;  // some other line in between
    row(line_no);
  }

  NcclTestsLog finish() {
    if (log_.rows.empty())
      throw util::InputError(log_.path, 0, "",
                             "no all_reduce_perf table rows found (expected lines of 'size count type redop ...')");
    if (device_ranks_ > 0) {
      log_.ranks = device_ranks_;
      log_.ranks_source = "device lines";
    } else if (nranks_ > 0) {
      log_.ranks = nranks_;
      log_.ranks_source = "nranks";
    } else if (int n = ranks_from_ratio(); n > 0) {
      log_.ranks = n;
      log_.ranks_source = "busbw/algbw";
    }
    return std::move(log_);
  }

 private:
  void comment(std::string_view text, long line_no) {
    util::split_whitespace(text, tok_);
    if (tok_.size() >= 2 && tok_[0] == "Rank") {  // "#  Rank  0 Group  0 Pid 1 on HOST device  0 [0x07] NAME"
      std::int64_t r;
      if (!util::try_parse_int(tok_[1], r) || r < 0) return;
      // A rank number is a count of ranks minus one: within the profile's rank limit.
      const int rank =
          util::checked_int<int>(r, util::FieldContext{log_.path, line_no, "rank"}, 0, perf::kMaxRanks - 1);
      device_ranks_ = std::max(device_ranks_, rank + 1);
      if (r == 0) {
        for (std::size_t i = 2; i + 1 < tok_.size(); ++i)
          if (tok_[i] == "on") log_.host = std::string(tok_[i + 1]);
        for (std::size_t i = 2; i < tok_.size(); ++i) {
          if (tok_[i].size() > 1 && tok_[i].front() == '[' && tok_[i].back() == ']') {
            std::string name;
            for (std::size_t j = i + 1; j < tok_.size(); ++j) name += (name.empty() ? "" : " ") + std::string(tok_[j]);
            log_.gpu = name;
            break;
          }
        }
      }
      return;
    }
    auto contains = [&](std::string_view w) { return std::find(tok_.begin(), tok_.end(), w) != tok_.end(); };
    if (contains("size") && contains("redop") && contains("time") && contains("busbw")) {
      header_seen_ = true;
      log_.has_root_column = contains("root");
    }
  }

  void nccl_line(long line_no) {
    for (std::size_t i = 0; i + 1 < tok_.size(); ++i) {
      std::int64_t n;
      if (tok_[i] == "nranks" && util::try_parse_int(tok_[i + 1], n) && n > 0)
        nranks_ = std::max(
            nranks_, util::checked_int<int>(n, util::FieldContext{log_.path, line_no, "nranks"}, 1, perf::kMaxRanks));
      if (tok_[i] == "version" && i > 0 && tok_[i - 1] == "NCCL" && log_.nccl_version.empty())
        log_.nccl_version = std::string(tok_[i + 1]);
    }
  }

  void row(long line_no) {
    const std::size_t with_root = 13, without_root = 12;
    std::size_t want;
    if (header_seen_) {
      want = log_.has_root_column ? with_root : without_root;
    } else if (tok_.size() == with_root || tok_.size() == without_root) {
      want = tok_.size();  // no header (cut-off excerpt): the column count tells the generation
      log_.has_root_column = want == with_root;
      header_seen_ = true;
    } else {
      want = 0;
    }
    if (tok_.size() != want) {
      std::string expected = want == without_root ? "12 (size count type redop, then time algbw busbw error twice)"
                             : want == with_root ? "13 (size count type redop root, then time algbw busbw #wrong twice)"
                                                 : "12 (before nccl-tests 2.13) or 13 (since 2.13)";
      throw util::InputError(
          log_.path, line_no, "",
          fmt::format("all_reduce_perf table row has {} columns, expected {}", tok_.size(), expected));
    }
    std::size_t c = 0;
    auto at = [&](std::string_view column) { return util::FieldContext{log_.path, line_no, column}; };
    NcclTestsRow r;
    r.line = line_no;
    r.bytes = util::checked_real(static_cast<double>(util::parse_int_at_least(tok_[c++], 0, at("size"))), at("size"), 0,
                                 perf::kMaxMessageBytes);
    r.count = util::parse_int_at_least(tok_[c++], 0, at("count"));
    r.type = std::string(tok_[c++]);
    r.redop = std::string(tok_[c++]);
    if (log_.has_root_column) util::parse_int(tok_[c++], at("root"));
    // Within the ranges a profile accepts for its measurements, so that the import writes a
    // profile that loads back.
    auto time_us = [&](std::string_view column) {
      return util::checked_real(util::parse_double(tok_[c++], at(column)), at(column), 0, perf::kMaxMeasuredUs);
    };
    auto gbps = [&](std::string_view column) {
      return util::checked_real(util::parse_double(tok_[c++], at(column)), at(column), 0, perf::kMaxBetaGbps);
    };
    r.oop_time_us = time_us("out-of-place time");
    r.oop_algbw = gbps("out-of-place algbw");
    r.oop_busbw = gbps("out-of-place busbw");
    ++c;  // #wrong / error: a count, "N/A", or a max error such as 2e-07
    r.ip_time_us = time_us("in-place time");
    r.ip_algbw = gbps("in-place algbw");
    r.ip_busbw = gbps("in-place busbw");
    log_.rows.push_back(std::move(r));
  }

  // busbw/algbw = 2(n−1)/n, read off the row with the most digits (largest algbw).
  int ranks_from_ratio() const {
    const NcclTestsRow* best = nullptr;
    for (const auto& r : log_.rows)
      if (r.oop_algbw >= 1.0 && (!best || r.oop_algbw > best->oop_algbw)) best = &r;
    if (!best) return 0;
    double f = best->oop_busbw / best->oop_algbw;
    if (f == 0.0) return 1;
    if (f >= 2.0) return 0;
    const double ratio = 2.0 / (2.0 - f);
    if (!(ratio < perf::kMaxRanks)) return 0;  // busbw ~ 2·algbw: too many ranks to be a real run
    int n = static_cast<int>(std::lround(ratio));
    if (n < 2 || std::abs(2.0 * (n - 1) / n - f) > 0.01) return 0;
    return n;
  }

  NcclTestsLog log_;
  std::vector<std::string_view> tok_;
  bool header_seen_ = false;
  int device_ranks_ = 0;
  int nranks_ = 0;
};

}  // namespace

NcclTestsLog parse_nccl_tests_log(const std::string& path) {
  util::LineReader reader(path);
  Parser parser(path);
  std::string_view line;
  while (reader.next(line)) parser.feed(line, reader.line_number());
  return parser.finish();
}

NcclTestsLog parse_nccl_tests_log_text(std::string_view text, const std::string& name) {
  Parser parser(name);
  long line_no = 0;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    parser.feed(line, ++line_no);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return parser.finish();
}

}  // namespace schedlab::calib
