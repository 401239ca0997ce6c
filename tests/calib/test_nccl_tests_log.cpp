// nccl-tests all_reduce_perf log import: the real logs in ../shared/nccl-tests, and small inline
// fixtures for each table generation, prefix style and error.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "calib/alpha_beta_fit.h"
#include "calib/nccl_tests_log.h"
#include "util/error.h"

namespace fs = std::filesystem;
using schedlab::util::InputError;
using namespace schedlab::calib;

namespace {

struct SharedLog {
  const char* file;
  int ranks;
  const char* ranks_source;
  bool has_root;
  std::size_t rows;
};

const SharedLog kSharedLogs[] = {
    {"a100x8_sxm4_40gb_1node.log", 8, "device lines", true, 11},
    {"a10g_1rank_oldformat.log", 1, "device lines", false, 25},
    {"a10g_2node_tcp_socket_oldformat.log", 2, "nranks", false, 25},
    {"h100x16_p5_2node_efa.log", 16, "busbw/algbw", true, 32},
    {"h100x8_p5_1node_nvswitch.log", 8, "busbw/algbw", true, 32},
    {"v100x12_dgx2_1node_oldformat.log", 12, "device lines", false, 31},
};

fs::path shared_nccl_dir() { return fs::path(SCHEDLAB_SHARED_DIR) / "nccl-tests"; }

// Within 1%, or, for small figures, within the rounding of the printed two decimals (0.005) plus
// that of the printed time (4-5 significant digits, < 0.1%): 65536 B in "135.1" us is 0.4851 GB/s
// but was printed 0.48 (from 135.14 us, say).
bool close_to_printed(double recomputed, double printed) {
  return std::abs(recomputed - printed) <= std::max(0.01 * printed, 0.005 + 0.001 * recomputed);
}

}  // namespace

TEST_CASE("Calib.NcclTestsLog.shared_logs") {
  if (!fs::is_directory(shared_nccl_dir())) {
    MESSAGE("skipped: " << shared_nccl_dir().string() << " is absent");
    return;
  }
  for (const auto& e : kSharedLogs) {
    CAPTURE(std::string(e.file));
    NcclTestsLog log = parse_nccl_tests_log((shared_nccl_dir() / e.file).string());
    CHECK(log.ranks == e.ranks);
    CHECK(log.ranks_source == e.ranks_source);
    CHECK(log.has_root_column == e.has_root);
    REQUIRE(log.rows.size() == e.rows);
    for (std::size_t i = 1; i < log.rows.size(); ++i) CHECK(log.rows[i].bytes == 2 * log.rows[i - 1].bytes);
    for (const auto& r : log.rows) {
      CAPTURE(r.line);
      CHECK(r.type == "float");
      CHECK(r.redop == "sum");
      CHECK(r.count * 4 == static_cast<std::int64_t>(r.bytes));
      struct Half {
        double time, algbw, busbw;
      };
      for (Half h : {Half{r.oop_time_us, r.oop_algbw, r.oop_busbw}, Half{r.ip_time_us, r.ip_algbw, r.ip_busbw}}) {
        Bandwidths b = allreduce_bandwidths(r.bytes, h.time, log.ranks);
        if (log.ranks == 1) CHECK(b.busbw == 0.0);
        if (h.busbw > 0) CHECK_MESSAGE(close_to_printed(b.busbw, h.busbw), "busbw " << b.busbw << " vs " << h.busbw);
        if (h.algbw > 0) CHECK_MESSAGE(close_to_printed(b.algbw, h.algbw), "algbw " << b.algbw << " vs " << h.algbw);
      }
    }
  }
}

TEST_CASE("Calib.NcclTestsLog.shared_log_details") {
  if (!fs::is_directory(shared_nccl_dir())) {
    MESSAGE("skipped: " << shared_nccl_dir().string() << " is absent");
    return;
  }
  NcclTestsLog a100 = parse_nccl_tests_log((shared_nccl_dir() / "a100x8_sxm4_40gb_1node.log").string());
  CHECK(a100.gpu == "NVIDIA A100-SXM4-40GB");
  CHECK(a100.rows.front().bytes == 1048576);
  CHECK(a100.rows.front().oop_time_us == doctest::Approx(78.77));
  CHECK(a100.rows.back().ip_busbw == doctest::Approx(229.11));
  NcclTestsLog v100 = parse_nccl_tests_log((shared_nccl_dir() / "v100x12_dgx2_1node_oldformat.log").string());
  CHECK(v100.host == "seville");
  CHECK(v100.gpu == "Tesla V100-SXM3-32GB");
  NcclTestsLog h100 = parse_nccl_tests_log((shared_nccl_dir() / "h100x8_p5_1node_nvswitch.log").string());
  CHECK(h100.rows.back().bytes == 17179869184.0);
  CHECK(h100.rows.back().oop_time_us == 62239);
}

TEST_CASE("Calib.NcclTestsLog.new_format_open_mpi_prefix") {
  const char* text =
      "[1,0]<stdout>:# nThread 1 nGpus 1 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20\n"
      "[1,0]<stdout>:#  Rank  0 Group  0 Pid 11 on node-a device  0 [0x53] NVIDIA H100 80GB HBM3\n"
      "[1,0]<stdout>:#  Rank  1 Group  0 Pid 12 on node-a device  1 [0x64] NVIDIA H100 80GB HBM3\n"
      "[1,0]<stdout>:#                                                   out-of-place                 in-place    \n"
      "[1,0]<stdout>:#       size         count      type   redop    root     time   algbw   busbw #wrong     time   "
      "algbw   busbw #wrong   \n"
      "[1,0]<stdout>:#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  "
      "(GB/s)  (GB/s)       \n"
      "[1,0]<stdout>:           8             2     float     sum      -1    12.90    0.00    0.00      0    12.87    "
      "0.00    0.00      0\n"
      "[1,1]<stderr>:node-a:11:11 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 - Init COMPLETE\n"
      "[1,0]<stdout>:     1048576        262144     float     sum      -1    28.56   36.71   36.71    N/A    28.37   "
      "36.96   36.96    N/A\n"
      "[1,0]<stdout>:# Avg bus bandwidth    : 18.3 \n";
  NcclTestsLog log = parse_nccl_tests_log_text(text, "fixture.log");
  CHECK(log.has_root_column);
  CHECK(log.ranks == 2);
  CHECK(log.ranks_source == "device lines");
  CHECK(log.host == "node-a");
  CHECK(log.gpu == "NVIDIA H100 80GB HBM3");
  REQUIRE(log.rows.size() == 2);
  CHECK(log.rows[0].line == 7);
  CHECK(log.rows[1].bytes == 1048576);
  CHECK(log.rows[1].count == 262144);
  CHECK(log.rows[1].oop_time_us == doctest::Approx(28.56));
  CHECK(log.rows[1].ip_busbw == doctest::Approx(36.96));
}

TEST_CASE("Calib.NcclTestsLog.old_format_srun_prefix_and_nccl_info") {
  const char* text =
      "0: #\n"
      "0: #                                                 out-of-place                       in-place\n"
      "0: #       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "0: host:1:1 [0] NCCL INFO NCCL version 2.11.4+cuda11.4\n"
      "1: host:2:2 [0] NCCL INFO comm 0x7f rank 1 nranks 4 cudaDev 0 busId 1e0 - Init COMPLETE\n"
      "0:            8             2   float     sum    61.03    0.00    0.00  2e-07    61.04    0.00    0.00  1e-07\n"
      "0:     67108864      16777216   float     sum   1051.8   63.80   95.70  2e-07   1052.0   63.79   95.69  2e-07\n";
  NcclTestsLog log = parse_nccl_tests_log_text(text, "old.log");
  CHECK_FALSE(log.has_root_column);
  CHECK(log.ranks == 4);
  CHECK(log.ranks_source == "nranks");
  CHECK(log.nccl_version == "2.11.4+cuda11.4");
  REQUIRE(log.rows.size() == 2);
  CHECK(log.rows[1].oop_busbw == doctest::Approx(95.70));
}

TEST_CASE("Calib.NcclTestsLog.no_header_ranks_from_bandwidth_ratio") {
  // Excerpt without header: the column count tells the generation, busbw/algbw = 1.875 the ranks.
  const char* text =
      "  12:  1073741824     268435456     float     sum      -1   4607.6  233.04  436.95      0   4565.6  235.18  "
      "440.96      0\n";
  NcclTestsLog log = parse_nccl_tests_log_text(text, "cut.log");
  CHECK(log.has_root_column);
  CHECK(log.ranks == 16);
  CHECK(log.ranks_source == "busbw/algbw");
}

TEST_CASE("Calib.NcclTestsLog.one_rank_busbw_zero") {
  const char* text =
      "#   Rank  0 Pid   1428 on ip-10-0-139-244 device  0 [0x00] NVIDIA A10G\n"
      "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "     1048576        262144     float     sum     6.69  156.78    0.00  0e+00     0.58  1797.05    0.00  0e+00\n";
  NcclTestsLog log = parse_nccl_tests_log_text(text, "one.log");
  CHECK(log.ranks == 1);
  CHECK(allreduce_bandwidths(1048576, 6.69, 1).busbw == 0.0);
  // Without device lines the zero busbw alone says one rank.
  NcclTestsLog bare = parse_nccl_tests_log_text(
      "     1048576        262144     float     sum     6.69  156.78    0.00  0e+00     0.58  1797.05    0.00  0e+00\n",
      "bare.log");
  CHECK(bare.ranks == 1);
  CHECK(bare.ranks_source == "busbw/algbw");
}

TEST_CASE("Calib.NcclTestsLog.errors") {
  const std::string header =
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
      "#wrong\n";
  SUBCASE("a row with a column missing") {
    std::string text =
        header +
        "           8             2     float     sum      -1    12.90    0.00    0.00      0    12.87    "
        "0.00    0.00\n";
    CHECK_THROWS_WITH_AS(parse_nccl_tests_log_text(text, "bad.log"),
                         doctest::Contains("bad.log:2: all_reduce_perf table row has 12 columns, expected 13"),
                         InputError);
  }
  SUBCASE("a time that is not a number") {
    std::string text =
        header + "\n\n" +
        "           8             2     float     sum      -1    12.x0    0.00    0.00      0    12.87    "
        "0.00    0.00      0\n";
    try {
      parse_nccl_tests_log_text(text, "bad.log");
      FAIL("no error");
    } catch (const InputError& e) {
      CHECK(e.file() == "bad.log");
      CHECK(e.line() == 4);
      CHECK(e.field() == "out-of-place time");
      CHECK(std::string(e.what()).find("'12.x0' is not a number") != std::string::npos);
    }
  }
  SUBCASE("no table at all") {
    CHECK_THROWS_WITH_AS(parse_nccl_tests_log_text("# nThread 1\nhello\n", "empty.log"),
                         doctest::Contains("empty.log: no all_reduce_perf table rows found"), InputError);
  }
  SUBCASE("a missing file") { CHECK_THROWS_AS(parse_nccl_tests_log("/nonexistent/x.log"), InputError); }
}
