// nccl-tests logs: numbers in range (R08) and fit errors that name the log (R17).
#include <doctest/doctest.h>

#include "../support/input_errors.h"
#include "calib/alpha_beta_fit.h"
#include "calib/nccl_tests_log.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::testing;
using namespace schedlab::calib;

namespace {
const char* kHeader =
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw  "
    "#wrong\n";
}  // namespace

TEST_CASE("Calib.Robustness.rank_numbers_in_range") {
  // R08: rank INT_MAX + 1 overflowed an int.
  std::string log = std::string("#  Rank  2147483647 Group  0 Pid 1 on host device  0 [0x07] NVIDIA H100\n") + kHeader +
                    "           8             2     float     sum      -1    12.90    0.00    0.00      0    12.87    "
                    "0.00    0.00      0\n";
  auto e = input_error_of([&] { parse_nccl_tests_log_text(log, "r08.log"); });
  CHECK(e.file() == "r08.log");
  CHECK(e.line() == 1);
  CHECK(e.field() == "rank");
  CHECK(std::string(e.what()).find("2147483647 is out of range [0, 16777215]") != std::string::npos);

  std::string nccl = std::string("host: NCCL INFO comm 0x1 rank 0 nranks 99999999999 cudaDev 0\n") + kHeader +
                     "           8             2     float     sum      -1    12.90    0.00    0.00      0    12.87    "
                     "0.00    0.00      0\n";
  auto e2 = input_error_of([&] { parse_nccl_tests_log_text(nccl, "n.log"); });
  CHECK(e2.line() == 1);
  CHECK(e2.field() == "nranks");
}

TEST_CASE("Calib.Robustness.fit_errors_name_the_log") {
  // R17: times that fall with size cannot be fitted; the error named no file.
  std::string text = std::string("#  Rank  0 Group  0 Pid 1 on host device  0 [0x07] NVIDIA H100\n") +
                     "#  Rank  1 Group  0 Pid 1 on host device  1 [0x07] NVIDIA H100\n" + kHeader +
                     "           8             2     float     sum      -1    100.0    0.00    0.00      0    100.0    "
                     "0.00    0.00      0\n"
                     "     1048576        262144     float     sum      -1    10.0   36.71   64.24      0    10.0   "
                     "36.96   64.68      0\n";
  std::vector<NcclTestsLog> logs{parse_nccl_tests_log_text(text, "r17.log")};
  auto e = input_error_of([&] { profile_from_nccl_tests(logs, ImportOptions{}); });
  CHECK(e.file() == "r17.log");
  CHECK(std::string(e.what()).starts_with("r17.log: "));
  CHECK(std::string(e.what()).find("the times do not grow with the message size") != std::string::npos);
}
